package lockbench.redisson;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.redisson.RedissonFencedLock;
import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * RLock and RFencedLock: redisson, redisson-unsynced, redisson-observed and
 * redisson-reentrant (leaseTime -1, the watchdog; the last takes each lock
 * twice on its thread id and unlocks it twice, as reentrant code does),
 * redisson-lease (leaseTime = TTL) and
 * redisson-fenced (RFencedLock, leaseTime = TTL, or the watchdog when init
 * asks for renewal or gives no TTL). Each acquire runs as the client's own
 * Redisson thread id (Form.threadId), so the lock's owner is that client and
 * its unlock is checked against it by the library.
 */
final class LockForm extends Form {
    /** The three forms of RLock the driver offers. */
    enum Kind { WATCHDOG, LEASE, FENCED }

    private final Kind kind;
    /** leaseTime of each lock call: -1 for the watchdog. */
    private final long leaseMs;
    /** What a fresh lease is worth: the TTL, or the watchdog's timeout. */
    private final long validMs;
    /** redisson-observed's watchdog observer; null for the others, and when it could not be installed. */
    private final Observation.Watch watchdog;
    /** How many times each acquire takes the lock and each release unlocks it: 2 for redisson-reentrant. */
    final int depth;

    LockForm(Kind kind, Settings s, RedissonClient redisson, long leaseMs, long validMs, Observation.Watch watchdog) {
        this(kind, s, redisson, leaseMs, validMs, watchdog, 1);
    }

    LockForm(Kind kind, Settings s, RedissonClient redisson, long leaseMs, long validMs, Observation.Watch watchdog, int depth) {
        super(s, redisson);
        this.kind = kind;
        this.leaseMs = leaseMs;
        this.validMs = validMs;
        this.watchdog = watchdog;
        this.depth = depth;
    }

    @Override
    ObjectNode capabilities() {
        // renewal: the library renews (its watchdog), whether or not the
        // driver observes it
        return caps(false, leaseMs < 0, kind == Kind.FENCED, false);
    }

    /**
     * A fresh lock object of the key, named by lockbench's key as is.
     * RFencedLock keeps its counter beside the lock, as Redisson names it,
     * redisson_lock_token:{key}: outside the prefix, with lockbench's key as
     * its hash tag (the same slot), as Redisson's unlock latch
     * (redisson_unlock_latch:{key}:id) is.
     */
    private RLock lock(String key) {
        return kind == Kind.FENCED ? redisson.getFencedLock(key) : redisson.getLock(key);
    }

    /**
     * The lock's fence when the call took it (0 for an RLock), or null. The
     * fenced lock's call with a thread id is RedissonFencedLock's own (public,
     * in Redisson since RFencedLock came, 3.19): RFencedLockAsync takes none.
     */
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
        String name = req.key;
        RLock l = lock(name);
        long tid = threadId(req.client);
        long t0 = System.nanoTime();
        take(l, waitMs(), tid).thenCompose(fence -> again(l, tid, fence, depth - 1)).whenComplete((fence, err) -> {
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
                watchdog.hold(name, tid, req.client, token);
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

    /**
     * Takes the lock held as fence n more times on the same thread id
     * (reentrant: at once, the library's hold count raised), answering the
     * first call's fence; null (not taken) as it is.
     */
    private CompletionStage<Long> again(RLock l, long tid, Long fence, int n) {
        CompletionStage<Long> c = java.util.concurrent.CompletableFuture.completedFuture(fence);
        if (fence == null) {
            return c;
        }
        for (int i = 0; i < n; i++) {
            c = c.thenCompose(f -> take(l, 0, tid).thenApply(ignored -> f));
        }
        return c;
    }

    /** Unlocks n times on the thread id, one after another. */
    private CompletionStage<Void> unlock(RLock l, long tid, int n) {
        CompletionStage<Void> c = l.unlockAsync(tid);
        for (int i = 1; i < n; i++) {
            c = c.thenCompose(v -> l.unlockAsync(tid));
        }
        return c;
    }

    @Override
    void release(Req req, Lease lease) {
        if (watchdog != null) {
            watchdog.drop(lease.rawName, threadId(lease.client));
        }
        RLock l = (RLock) lease.handle;
        long t0 = System.nanoTime();
        unlock(l, threadId(lease.client), depth).whenComplete((v, err) -> {
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

    /**
     * The bare loop's cycle (Bare): the calls acquire and release make,
     * with no protocol: the lock taken as acquire takes it, then unlocked
     * as release unlocks it. It completes with the acquire's nanoseconds,
     * or fails when the lock was refused or a call failed.
     */
    CompletionStage<Long> cycle(int client, String key) {
        RLock l = lock(key);
        long tid = threadId(client);
        long t0 = System.nanoTime();
        return take(l, waitMs(), tid).thenCompose(fence -> again(l, tid, fence, depth - 1)).thenCompose(fence -> {
            if (fence == null) {
                throw new IllegalStateException("the lock was refused on a name of the client's own");
            }
            long took = System.nanoTime() - t0;
            return unlock(l, tid, depth).thenApply(v -> took);
        });
    }

    @Override
    void warmUp(String key) throws Exception {
        String name = key;
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
