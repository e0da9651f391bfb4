package lockbench.redisson;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.redisson.RedissonFencedLock;
import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.lang.reflect.Field;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * RLock and RFencedLock: redisson (leaseTime -1, the watchdog),
 * redisson-lease (leaseTime = TTL) and redisson-fenced (RFencedLock,
 * leaseTime = TTL, or the watchdog when init asks for renewal or gives no
 * TTL). Each acquire runs as the client's own Redisson thread id
 * (Form.threadId), so the lock's owner is that client and its unlock is
 * checked against it by the library.
 */
final class LockForm extends Form {
    /** The three forms of RLock the driver offers. */
    enum Kind { WATCHDOG, LEASE, FENCED }

    private static final Field TOKEN_NAME;

    static {
        try {
            TOKEN_NAME = RedissonFencedLock.class.getDeclaredField("tokenName");
            TOKEN_NAME.setAccessible(true);
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Kind kind;
    /** leaseTime of each lock call: -1 for the watchdog. */
    private final long leaseMs;
    /** What a fresh lease is worth: the TTL, or the watchdog's timeout. */
    private final long validMs;
    private final Watchdog watchdog;

    LockForm(Kind kind, Settings s, RedissonClient redisson, long leaseMs, long validMs, Watchdog watchdog) {
        super(s, redisson);
        this.kind = kind;
        this.leaseMs = leaseMs;
        this.validMs = validMs;
        this.watchdog = watchdog;
    }

    @Override
    ObjectNode capabilities() {
        return caps(false, watchdog != null, kind == Kind.FENCED, false);
    }

    private String rawName(String key) {
        return kind == Kind.FENCED ? tagged(key) : key;
    }

    /**
     * A fresh lock object of the key. RFencedLock's counter key is
     * redisson_lock_token:{name}, outside any prefix: the driver moves it to
     * name:redisson_lock_token (the same hash slot; the library's scripts,
     * which take it as KEYS[2], are unchanged).
     */
    private RLock lock(String name) {
        if (kind != Kind.FENCED) {
            return redisson.getLock(name);
        }
        RLock l = redisson.getFencedLock(name);
        try {
            TOKEN_NAME.set(l, name + ":redisson_lock_token");
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        return l;
    }

    /** Whether the call took the lock (a fence or true), or null/false. */
    private CompletionStage<Long> take(RLock l, long wait, long threadId) {
        if (kind == Kind.FENCED) {
            return ((RedissonFencedLock) l).tryLockAndGetTokenAsync(wait, leaseMs, TimeUnit.MILLISECONDS, threadId);
        }
        RFuture<?> f = wait < 0
                ? l.lockAsync(leaseMs, TimeUnit.MILLISECONDS, threadId)
                : l.tryLockAsync(wait, leaseMs, TimeUnit.MILLISECONDS, threadId);
        return f.thenApply(r -> r == null || Boolean.TRUE.equals(r) ? 0L : null);
    }

    @Override
    void acquire(Req req) {
        String name = rawName(req.key);
        RLock l = lock(name);
        long tid = threadId(req.client);
        long t0 = System.nanoTime();
        take(l, waitMs(), tid).whenComplete((fence, err) -> {
            long t1 = System.nanoTime();
            long took = (t1 - t0) / 1000;
            if (err != null) {
                fail(req, err);
                return;
            }
            if (fence == null) {
                ObjectNode m = Out.reply(req, "not_acquired");
                m.put("reason", s.blocking() ? "timeout" : "busy");
                m.put("took_us", took);
                Out.send(m);
                return;
            }
            String token = newToken(req.client);
            Lease lease = new Lease(req.client, req.key, token, name, l);
            leases.put(leaseKey(req.client, req.key, token), lease);
            if (watchdog != null) {
                watchdog.hold(name, tid, lease);
            }
            ObjectNode m = Out.reply(req, "acquire_ok");
            m.put("token", token);
            if (kind == Kind.FENCED) {
                m.put("fence", fence);
            }
            m.put("took_us", took);
            // a lease set at the try that succeeded, at most took ago: when that
            // is a small part of the lease, validity is the lease less took;
            // after a long wait the library is asked (PTTL) instead
            if (ms(t1 - t0) <= validMs / 20.0) {
                m.put("validity_ms", round3(validMs - ms(t1 - t0)));
                Out.send(m);
                return;
            }
            l.remainTimeToLiveAsync().whenComplete((pttl, e2) -> {
                if (e2 == null && pttl != null && pttl >= 0) {
                    m.put("validity_ms", round3(pttl - ms(System.nanoTime() - t1)));
                }
                Out.send(m);
            });
        });
    }

    @Override
    void release(Req req, Lease lease) {
        if (watchdog != null) {
            watchdog.drop(lease.rawName, threadId(lease.client));
        }
        RLock l = (RLock) lease.handle;
        long t0 = System.nanoTime();
        l.unlockAsync(threadId(lease.client)).whenComplete((v, err) -> {
            if (err == null) {
                ObjectNode m = Out.reply(req, "release_ok");
                m.put("took_us", (System.nanoTime() - t0) / 1000);
                Out.send(m);
                return;
            }
            if (unwrap(err) instanceof IllegalMonitorStateException) {
                // "attempt to unlock lock, not locked by current thread": it
                // expired, or another holder has it; the script deleted nothing
                Out.send(Out.reply(req, "lease_gone"));
                return;
            }
            fail(req, err);
        });
    }

    @Override
    void warmUp(String key) throws Exception {
        String name = rawName(key);
        long tid = THREAD_BASE - 1;
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
        for (int i = 0; i < 300 && System.nanoTime() < until; i++) {
            RLock l = lock(name);
            try {
                if (take(l, 0, tid).toCompletableFuture().get() != null) {
                    l.unlockAsync(tid).toCompletableFuture().get();
                }
            } catch (java.util.concurrent.ExecutionException e) {
                // a short TTL on a loaded machine: the warm-up lock expired
                // before its unlock (IllegalMonitorStateException); go on
                if (!(unwrap(e) instanceof IllegalMonitorStateException)) {
                    throw e;
                }
            }
        }
    }
}
