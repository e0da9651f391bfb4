package lockbench.redisson;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.redisson.api.RFuture;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RPermitExpirableSemaphoreAsync;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * redisson-semaphore: RPermitExpirableSemaphore with lockbench's limit as its
 * permits (trySetPermits on a key's first use: the first process to ask sets
 * it) and a permit's lease time = the TTL (none: the permit never expires,
 * the library's default). The token is the library's permit id; extend is
 * updateLeaseTime, which the library checks against that id.
 */
final class SemaphoreForm extends Form {
    /**
     * Whether the Redisson loaded has getLeaseTimeAsync (public API since
     * 3.41; the driver compiles against 3.45.1 and runs older ones too):
     * without it, acquire_ok after a long wait says no validity.
     */
    private static final boolean LEASE_TIME = hasLeaseTime();

    private static boolean hasLeaseTime() {
        try {
            RPermitExpirableSemaphoreAsync.class.getMethod("getLeaseTimeAsync", String.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private final Map<String, CompletableFuture<Boolean>> permitsSet = new ConcurrentHashMap<>();

    SemaphoreForm(Settings s, RedissonClient redisson) {
        super(s, redisson);
    }

    @Override
    ObjectNode capabilities() {
        return caps(true, false, false, true);
    }

    private long leaseMs() {
        return s.ttlMs > 0 ? s.ttlMs : -1;
    }

    private RPermitExpirableSemaphore semaphore(String name) {
        return redisson.getPermitExpirableSemaphore(name);
    }

    /** The semaphore of name with its permits set (once per name in this process). */
    private CompletionStage<RPermitExpirableSemaphore> ready(String name) {
        RPermitExpirableSemaphore sem = semaphore(name);
        CompletableFuture<Boolean> set = permitsSet.computeIfAbsent(name,
                n -> sem.trySetPermitsAsync(s.limit).toCompletableFuture());
        return set.handle((ok, e) -> {
            if (e != null) {
                permitsSet.remove(name, set);
                throw new java.util.concurrent.CompletionException(unwrap(e));
            }
            return sem;
        });
    }

    private CompletionStage<String> take(RPermitExpirableSemaphore sem, long wait) {
        RFuture<String> f = wait < 0
                ? sem.acquireAsync(leaseMs(), TimeUnit.MILLISECONDS)
                : sem.tryAcquireAsync(wait, leaseMs(), TimeUnit.MILLISECONDS);
        return f;
    }

    @Override
    void acquire(Req req) {
        String name = tagged(req.key);
        long t0 = System.nanoTime();
        ready(name).thenCompose(sem -> take(sem, waitMs()).thenApply(id -> new Object[] {sem, id}))
                .whenComplete((r, err) -> {
                    long t1 = System.nanoTime();
                    long took = (t1 - t0) / 1000;
                    if (err != null) {
                        fail(req, err);
                        return;
                    }
                    RPermitExpirableSemaphore sem = (RPermitExpirableSemaphore) r[0];
                    String permit = (String) r[1];
                    if (permit == null) {
                        ObjectNode m = Out.reply(req, "not_acquired");
                        m.put("reason", s.blocking() ? "timeout" : "busy");
                        m.put("took_us", took);
                        Out.send(m);
                        return;
                    }
                    leases.put(leaseKey(req.client, req.key, permit), new Lease(req.client, req.key, permit, name, sem));
                    ObjectNode m = Out.reply(req, "acquire_ok");
                    m.put("token", permit);
                    m.put("took_us", took);
                    if (s.ttlMs <= 0) {
                        Out.send(m);
                        return;
                    }
                    if (ms(t1 - t0) <= s.ttlMs / 20.0) {
                        m.put("validity_ms", round3(s.ttlMs - ms(t1 - t0)));
                        Out.send(m);
                        return;
                    }
                    if (!LEASE_TIME) {
                        Out.send(m);
                        return;
                    }
                    // after a long wait: the permit's lease time left, as the library reads it
                    sem.getLeaseTimeAsync(permit).whenComplete((left, e2) -> {
                        if (e2 == null && left != null && left >= 0) {
                            m.put("validity_ms", round3(left - ms(System.nanoTime() - t1)));
                        }
                        Out.send(m);
                    });
                });
    }

    @Override
    void release(Req req, Lease lease) {
        RPermitExpirableSemaphore sem = (RPermitExpirableSemaphore) lease.handle;
        long t0 = System.nanoTime();
        sem.tryReleaseAsync(lease.token).whenComplete((ok, err) -> {
            if (err != null) {
                fail(req, err);
                return;
            }
            if (!Boolean.TRUE.equals(ok)) {
                // the permit expired (or was released): nothing was released
                Out.send(Out.reply(req, "lease_gone"));
                return;
            }
            ObjectNode m = Out.reply(req, "release_ok");
            m.put("took_us", (System.nanoTime() - t0) / 1000);
            Out.send(m);
        });
    }

    @Override
    void extend(Req req) {
        String lk = leaseKey(req.client, req.key, req.token);
        Lease lease = leases.get(lk);
        if (lease == null) {
            Out.send(Out.reply(req, "lease_gone"));
            return;
        }
        RPermitExpirableSemaphore sem = (RPermitExpirableSemaphore) lease.handle;
        long ttl = Math.max(1, Math.round(req.ttlMs));
        long t0 = System.nanoTime();
        sem.updateLeaseTimeAsync(lease.token, ttl, TimeUnit.MILLISECONDS).whenComplete((ok, err) -> {
            if (err != null) {
                fail(req, err);
                return;
            }
            if (!Boolean.TRUE.equals(ok)) {
                leases.remove(lk);
                Out.send(Out.reply(req, "lease_gone"));
                return;
            }
            ObjectNode m = Out.reply(req, "extend_ok");
            m.put("validity_ms", round3(ttl - ms(System.nanoTime() - t0)));
            Out.send(m);
        });
    }

    @Override
    void warmUp(String key) throws Exception {
        RPermitExpirableSemaphore sem = ready(tagged(key)).toCompletableFuture().get();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
        for (int i = 0; i < 300 && System.nanoTime() < until; i++) {
            String permit = take(sem, 0).toCompletableFuture().get();
            if (permit != null) {
                // false when the permit expired first (a short TTL): no matter
                sem.tryReleaseAsync(permit).toCompletableFuture().get();
            }
        }
    }
}
