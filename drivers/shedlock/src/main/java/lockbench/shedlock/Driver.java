package lockbench.shedlock;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One form of the driver (a name in driver.json) on one RedisLockProvider:
 * the leases its clients hold, and each request run on its client's own
 * thread (ShedLock's API is blocking; lockbench never has two requests of a
 * client in flight, so a thread per client keeps the reader free and each
 * client's requests in order).
 */
final class Driver {
    /** ShedLock's default environment, the middle part of its keys (InternalRedisLockProvider.ENV_DEFAULT). */
    static final String ENVIRONMENT = "default";

    final Settings s;
    final String form;
    final boolean safe;
    final LettuceConnectionFactory factory;
    final LockProvider provider;
    /** ShedLock's keyPrefix: lockbench's prefix less its trailing ':', which ShedLock puts back. */
    final String keyPrefix;
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final Map<Integer, ExecutorService> workers = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();

    /** One held lease; lock is the SimpleLock ShedLock returned, replaced by each extend. */
    static final class Lease {
        final String key;
        volatile SimpleLock lock;

        Lease(String key, SimpleLock lock) {
            this.key = key;
            this.lock = lock;
        }
    }

    private Driver(Settings s, String form, LettuceConnectionFactory factory, LockProvider provider, String keyPrefix) {
        this.s = s;
        this.form = form;
        this.safe = form.equals("shedlock-safe");
        this.factory = factory;
        this.provider = provider;
        this.keyPrefix = keyPrefix;
    }

    /** The form named, connected, its provider built and warmed up; Unsupported for what it cannot serve. */
    static Driver make(String form, Settings s) throws Unsupported {
        if (s.renew) {
            throw Unsupported.unsupported("ShedLock's RedisLockProvider does not renew (KeepAliveLockProvider is another provider, not this form): renew:true is not served");
        }
        if (s.limit > 1) {
            throw Unsupported.unsupported("ShedLock's lock is no semaphore: limit " + s.limit + " is not served");
        }
        if (s.ttlMs <= 0) {
            throw Unsupported.unsupported("ShedLock has no default lockAtMostFor (a lock needs one): give a TTL");
        }
        boolean safe = form.equals("shedlock-safe");
        if (safe && !hasSafeUpdate()) {
            throw Unsupported.unsupported("shedlock-safe needs RedisLockProvider.Builder.safeUpdate (ShedLock 6.7.0 and later); ShedLock "
                    + Main.shedlockVersion() + " has none");
        }
        String keyPrefix = s.prefix.endsWith(":") ? s.prefix.substring(0, s.prefix.length() - 1) : s.prefix;
        LettuceConnectionFactory factory = Connect.factory(s);
        try (RedisConnection c = factory.getConnection()) {
            c.ping();
        }
        RedisLockProvider.Builder b = new RedisLockProvider.Builder(factory).environment(ENVIRONMENT).keyPrefix(keyPrefix);
        if (safe) {
            b.safeUpdate(true);
        }
        Driver d = new Driver(s, form, factory, b.build(), keyPrefix);
        d.warmUp();
        return d;
    }

    private static boolean hasSafeUpdate() {
        try {
            RedisLockProvider.Builder.class.getMethod("safeUpdate", boolean.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    boolean extensible() {
        return provider instanceof ExtensibleLockProvider;
    }

    ObjectNode capabilities() {
        ObjectNode c = Out.JSON.createObjectNode();
        c.put("extend", extensible());
        c.put("renewal", false);
        c.put("fencing", false);
        c.put("semaphore", false);
        c.put("blocking", s.retry.waits());
        ArrayNode modes = c.putArray("modes");
        Settings.MODES.forEach(modes::add);
        return c;
    }

    /**
     * Takes and releases a lock of this process's own (prefix + "shedlock-warmup-PID"),
     * at most 300 times or 400 ms, before init_ok: class loading and the
     * interpreter's first passes over the lock path stay out of the cell.
     */
    private void warmUp() {
        String name = "shedlock-warmup-" + ProcessHandle.current().pid();
        long end = System.nanoTime() + 400_000_000L;
        for (int i = 0; i < 300 && System.nanoTime() < end; i++) {
            Optional<SimpleLock> l = provider.lock(config(name, s.ttlMs));
            if (l.isEmpty()) {
                continue;
            }
            SimpleLock held = l.get();
            if (extensible() && i % 2 == 0) {
                held = held.extend(Duration.ofMillis(s.ttlMs), Duration.ZERO).orElse(null);
            }
            if (held != null) {
                held.unlock();
            }
        }
    }

    /** ShedLock's lock of name for ttlMs (lockAtMostFor), lockAtLeastFor 0, created now on ShedLock's clock. */
    private static LockConfiguration config(String name, long ttlMs) {
        return new LockConfiguration(ClockProvider.now(), name, Duration.ofMillis(ttlMs), Duration.ZERO);
    }

    /** The lock name for lockbench's key: the part after the prefix (ShedLock keys it keyPrefix:default:name). */
    String lockName(String key) {
        return key.substring(s.prefix.length());
    }

    /** The Redis key ShedLock uses for lockbench's key (for logs). */
    String redisKey(String key) {
        return keyPrefix + ":" + ENVIRONMENT + ":" + lockName(key);
    }

    private static String leaseKey(int client, String key, String token) {
        return client + "\u0000" + key + "\u0000" + token;
    }

    private void run(Req r, Runnable call) {
        workers.computeIfAbsent(r.client(), c -> Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, "client-" + c);
            t.setDaemon(true);
            return t;
        })).execute(() -> {
            try {
                call.run();
            } catch (RuntimeException | LinkageError e) {
                Out.log(r.type() + " client " + r.client() + " on " + redisKey(r.key()) + ": " + e);
                Out.error(r, code(e), false, text(e));
            }
        });
    }

    void acquire(Req r) {
        run(r, () -> doAcquire(r));
    }

    void release(Req r) {
        run(r, () -> doRelease(r));
    }

    void extend(Req r) {
        if (!extensible()) {
            Out.error(r, "unsupported", true, "ShedLock " + Main.shedlockVersion() + "'s RedisLockProvider is no ExtensibleLockProvider: it has no extend");
            return;
        }
        run(r, () -> doExtend(r));
    }

    /**
     * lock() until it returns a lock or the acquire timeout has passed, with
     * the run's retry policy between calls; one call under "none" and
     * "library" (ShedLock's own: no retry).
     */
    private void doAcquire(Req r) {
        String name = lockName(r.key());
        long start = System.nanoTime();
        boolean waits = s.retry.waits();
        long deadline = waits && s.acquireTimeoutMs > 0 ? start + s.acquireTimeoutMs * 1_000_000L : Long.MAX_VALUE;
        for (int attempt = 0; ; attempt++) {
            LockConfiguration lc = config(name, s.ttlMs);
            Optional<SimpleLock> got = provider.lock(lc);
            long now = System.nanoTime();
            if (got.isPresent()) {
                String token = r.client() + "." + seq.incrementAndGet();
                leases.put(leaseKey(r.client(), r.key(), token), new Lease(r.key(), got.get()));
                ObjectNode ok = Out.reply(r, "acquire_ok");
                ok.put("token", token);
                ok.put("validity_ms", validityMs(lc));
                ok.put("took_us", (now - start) / 1000);
                Out.send(ok);
                return;
            }
            if (!waits || now >= deadline) {
                ObjectNode no = Out.reply(r, "not_acquired");
                no.put("reason", waits ? "timeout" : "busy");
                no.put("took_us", (now - start) / 1000);
                Out.send(no);
                return;
            }
            long pause = Math.min(s.retry.delayNanos(attempt), deadline - now);
            long until = now + pause;
            for (long left = pause; left > 0; left = until - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
        }
    }

    /**
     * The bare loop's cycle (Bare): the call acquire makes (one lock(), the
     * first try of doAcquire), then unlock() as release makes it, with no
     * protocol; the lock() call's nanoseconds. It throws when the lock was
     * refused.
     */
    long cycle(String key) {
        long t0 = System.nanoTime();
        Optional<SimpleLock> got = provider.lock(config(lockName(key), s.ttlMs));
        long took = System.nanoTime() - t0;
        got.orElseThrow(() -> new IllegalStateException("the lock was refused on a name of the client's own")).unlock();
        return took;
    }

    /** The lease's time left as ShedLock counts it: lockAtMostUntil less now. */
    private static double validityMs(LockConfiguration lc) {
        return Duration.between(Instant.now(), lc.getLockAtMostUntil()).toNanos() / 1e6;
    }

    /**
     * SimpleLock.unlock(): ShedLock tells nothing back (a DEL, or with
     * safeUpdate a compare-and-delete whose answer it drops), so every
     * unlock that returns is release_ok; only a token this client does not
     * hold is lease_gone, without a command.
     */
    private void doRelease(Req r) {
        String lk = leaseKey(r.client(), r.key(), r.token());
        Lease lease = leases.remove(lk);
        if (lease == null) {
            Out.send(Out.reply(r, "lease_gone"));
            return;
        }
        long start = System.nanoTime();
        try {
            lease.lock.unlock();
        } catch (RuntimeException e) {
            leases.put(lk, lease); // unlock threw before it marked the lock used: it may be tried again
            throw e;
        }
        ObjectNode ok = Out.reply(r, "release_ok");
        ok.put("took_us", (System.nanoTime() - start) / 1000);
        Out.send(ok);
    }

    /**
     * SimpleLock.extend(ttl, 0): a new SimpleLock in the lease's place, or
     * Optional.empty() (ShedLock found no key to extend; with safeUpdate, no
     * key of this lock's value) → lease_gone. The old SimpleLock is spent
     * either way.
     */
    private void doExtend(Req r) {
        String lk = leaseKey(r.client(), r.key(), r.token());
        Lease lease = leases.get(lk);
        if (lease == null) {
            Out.send(Out.reply(r, "lease_gone"));
            return;
        }
        long ttl = Math.max(1, Math.round(r.ttlMs()));
        long start = System.nanoTime();
        Instant asked = ClockProvider.now();
        Optional<SimpleLock> next = lease.lock.extend(Duration.ofMillis(ttl), Duration.ZERO);
        long took = (System.nanoTime() - start) / 1000;
        if (next.isEmpty()) {
            leases.remove(lk);
            Out.send(Out.reply(r, "lease_gone"));
            return;
        }
        lease.lock = next.get();
        ObjectNode ok = Out.reply(r, "extend_ok");
        ok.put("validity_ms", Duration.between(Instant.now(), asked.plusMillis(ttl)).toNanos() / 1e6);
        ok.put("took_us", took);
        Out.send(ok);
    }

    /** "timeout" for a command that timed out (spring's QueryTimeoutException, Lettuce's RedisCommandTimeoutException), else "io". */
    static String code(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            String n = c.getClass().getSimpleName();
            if (c instanceof TimeoutException || n.equals("QueryTimeoutException") || n.equals("RedisCommandTimeoutException")) {
                return "timeout";
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return e instanceof LinkageError ? "crash" : "io";
    }

    /** The exception and its causes, one line. */
    static String text(Throwable e) {
        StringBuilder b = new StringBuilder();
        int depth = 0;
        for (Throwable c = e; c != null && depth < 4; c = c.getCause(), depth++) {
            if (b.length() > 0) {
                b.append(" <- ");
            }
            b.append(c.getClass().getSimpleName());
            if (c.getMessage() != null) {
                b.append(": ").append(c.getMessage().replace('\n', ' '));
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return b.toString();
    }
}
