package lockbench.spring;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * The driver's forms over RedisLockRegistry. Every lockbench client is a
 * service instance of its own: a RedisLockRegistry of its own (its own client
 * id, the value the lock's key holds in Redis, and its own local
 * ReentrantLock per key) and a thread of its own, on which its acquires,
 * releases and extends run (unlock must be called on the thread that locked).
 * So two lockbench clients are never one owner to the library: neither the
 * same thread of one registry (reentrant: both would hold the lock) nor two
 * threads of one registry (excluded by the registry's in-process
 * ReentrantLock, not by Redis, and one owner in Redis). Exclusion between any
 * two clients rests on Redis alone, as between two JVMs.
 * All registries share the process's one LettuceConnectionFactory.
 *
 * The shared form (spring-redis-lock-shared) is the other way a service uses
 * the library: ONE registry per process, its clients sibling threads of it
 * (a service's request threads). Siblings are excluded by the registry's
 * local ReentrantLock of the key and are one owner (one client id) to Redis;
 * clients of two processes are excluded by Redis.
 */
final class Driver {
    final Settings s;
    final boolean pubsub;
    final boolean renew;
    /** spring-redis-lock-shared: one registry for every client of the process. */
    final boolean shared;
    private RedisLockRegistry sharedRegistry;
    /** expireAfter, ms: the TTL, or the library's 60 s when init gives none. */
    final long ttlMs;
    /** idleBetweenTries of the spin forms, ms; -1: the library's (100 ms). */
    final long idleMs;
    private final LettuceConnectionFactory factory;
    private final StringRedisTemplate own;
    private final ThreadPoolTaskScheduler renewPool;
    private final Map<Integer, Client> clients = new ConcurrentHashMap<>();
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    /** The registry key: the prefix without its ':' (the lock's key is registryKey:path). */
    final String registryKey;
    /** init_ok's text. */
    String note;
    /** renewLock(key, ttl) exists (7.0 and later): extend is served. */
    final boolean canExtend = has("renewLock", Object.class, Duration.class);
    /** renewLock(key) exists (6.4 and later). */
    final boolean canRenewLock = has("renewLock", Object.class);
    /** setIdleBetweenTries exists (6.4 and later); before, the spin lock polls every 100 ms. */
    static final boolean CAN_SET_IDLE = has("setIdleBetweenTries", Duration.class);

    static final long LIBRARY_TTL_MS = 60_000;

    Driver(Settings s, boolean pubsub, boolean renew, boolean shared, LettuceConnectionFactory factory) {
        this.s = s;
        this.pubsub = pubsub;
        this.renew = renew;
        this.shared = shared;
        this.ttlMs = s.ttlMs > 0 ? s.ttlMs : LIBRARY_TTL_MS;
        this.factory = factory;
        this.own = new StringRedisTemplate(factory);
        this.renewPool = renew ? Renewals.pool(s.clients) : null;
        this.registryKey = s.prefix.endsWith(":") ? s.prefix.substring(0, s.prefix.length() - 1) : s.prefix;
        switch (s.retryKind) {
            case "spin":
                idleMs = 0;
                break;
            case "fixed":
            case "exp":
                idleMs = Math.round(s.retryMinMs);
                break;
            case "random":
                idleMs = Math.round((s.retryMinMs + s.retryMaxMs) / 2);
                break;
            default:
                idleMs = -1;
        }
    }

    /** One lockbench client: its registry (the process's one in the shared form) and its thread. */
    final class Client {
        final int index;
        final ExecutorService thread;
        final Renewals renewals;
        /** Made on the client's thread by its first request. */
        RedisLockRegistry registry;

        Client(int index) {
            this.index = index;
            this.thread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "client-" + index);
                t.setDaemon(true);
                return t;
            });
            this.renewals = renew ? new Renewals(renewPool) : null;
        }

        RedisLockRegistry registry() {
            if (registry == null) {
                registry = shared ? sharedRegistry() : newRegistry(renewals);
            }
            return registry;
        }
    }

    /** The shared form's one registry, made by the first client that asks. */
    synchronized RedisLockRegistry sharedRegistry() {
        if (sharedRegistry == null) {
            sharedRegistry = newRegistry(null);
        }
        return sharedRegistry;
    }

    /** A registry as every client's is made: expireAfter, the lock type, the poll, the renewal scheduler. */
    RedisLockRegistry newRegistry(Renewals renewals) {
        RedisLockRegistry r = s.ttlMs > 0 ? new RedisLockRegistry(factory, registryKey, ttlMs) : new RedisLockRegistry(factory, registryKey);
        if (pubsub) {
            r.setRedisLockType(RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
        }
        if (idleMs >= 0 && !pubsub && CAN_SET_IDLE) {
            r.setIdleBetweenTries(Duration.ofMillis(idleMs));
        }
        if (renewals != null) {
            r.setRenewalTaskScheduler(renewals);
        }
        return r;
    }

    private Client client(int i) {
        return clients.computeIfAbsent(i, Client::new);
    }

    /**
     * The registry's path of lockbench's key: what follows the prefix. The
     * registry's key of it is registryKey:path, lockbench's key itself when
     * the prefix ends with ':' (lockbench's do), else prefix:path.
     */
    String path(String key) {
        return key.substring(s.prefix.length());
    }

    String redisKey(String path) {
        return registryKey + ":" + path;
    }

    ObjectNode capabilities() {
        ObjectNode c = Out.JSON.createObjectNode();
        c.put("extend", canExtend);
        c.put("renewal", renew);
        c.put("fencing", false);
        c.put("semaphore", false);
        c.put("blocking", true);
        // a release's "interrupt": Thread.interrupt() on the releasing thread
        c.put("interrupt", true);
        c.putArray("modes").add("single").add("sentinel").add("cluster");
        return c;
    }

    /** The wait of one acquire in ms: 0 one try, -1 no limit. */
    long waitMs() {
        if (!s.blocking()) {
            return 0;
        }
        return s.acquireTimeoutMs > 0 ? s.acquireTimeoutMs : -1;
    }

    void acquire(Req req) {
        Client c = client(req.client);
        c.thread.execute(() -> acquireOn(c, req));
    }

    private void acquireOn(Client c, Req req) {
        String token = req.client + "." + seq.incrementAndGet();
        Lease lease = new Lease(req.client, req.key, token, path(req.key), ttlMs);
        long t0 = System.nanoTime();
        boolean ok;
        try {
            // LockRegistry's obtain (Lock obtain(Object) in 6.x and 7.x alike)
            LockRegistry<?> reg = c.registry();
            Lock l = reg.obtain(lease.path);
            lease.lock = l;
            if (c.renewals != null) {
                c.renewals.acquiring(lease);
            }
            long wait = waitMs();
            if (wait < 0) {
                l.lock();
                ok = true;
            } else {
                ok = l.tryLock(wait, TimeUnit.MILLISECONDS);
            }
        } catch (Throwable e) {
            // CannotAcquireLockException wraps what Redis or Lettuce said: the
            // script may have run, so never definite
            fail(req, e);
            return;
        } finally {
            if (c.renewals != null) {
                c.renewals.acquiring(null);
            }
        }
        long t1 = System.nanoTime();
        long took = (t1 - t0) / 1000;
        if (!ok) {
            ObjectNode m = Out.reply(req, "not_acquired");
            m.put("reason", s.blocking() ? "timeout" : "busy");
            m.put("took_us", took);
            Out.send(m);
            return;
        }
        leases.put(lease.mapKey(), lease);
        ObjectNode m = Out.reply(req, "acquire_ok");
        m.put("token", token);
        m.put("took_us", took);
        // the key was set (PX expireAfter) by the try that succeeded, at most
        // took ago: a small part of the lease, the lease less took; after a
        // long wait, the key's PTTL (the driver's own command)
        if (ms(t1 - t0) <= ttlMs / 20.0) {
            m.put("validity_ms", round3(ttlMs - ms(t1 - t0)));
        } else {
            try {
                Long pttl = own.getExpire(redisKey(lease.path), TimeUnit.MILLISECONDS);
                if (pttl != null && pttl >= 0) {
                    m.put("validity_ms", round3(pttl - ms(System.nanoTime() - t1)));
                }
            } catch (RuntimeException e) {
                Out.log("PTTL " + req.key + ": " + text(e));
            }
        }
        Out.send(m);
    }

    void release(Req req) {
        Lease lease = leases.remove(Lease.mapKey(req.client, req.key, req.token));
        if (lease == null) {
            // not a lease this client holds: nothing is sent
            Out.send(Out.reply(req, "lease_gone"));
            return;
        }
        lease.end();
        Client c = client(req.client);
        c.thread.execute(() -> {
            long t0 = System.nanoTime();
            try {
                unlock(lease.lock, req.interrupt);
            } catch (ConcurrentModificationException e) {
                // "Lock was released in the store due to expiration": the
                // compare-and-delete found another value or none; nothing deleted
                Out.send(Out.reply(req, "lease_gone"));
                return;
            } catch (IllegalStateException e) {
                // "You do not own lock at ...": the local lock is not this
                // thread's; the library sent nothing
                Out.log("release " + req.key + " client " + req.client + ": " + text(e));
                Out.send(Out.reply(req, "lease_gone"));
                return;
            } catch (Throwable e) {
                fail(req, e);
                return;
            }
            ObjectNode m = Out.reply(req, "release_ok");
            m.put("took_us", (System.nanoTime() - t0) / 1000);
            Out.send(m);
        });
    }

    /**
     * The bare loop's cycle (Bare), on the calling thread (the bare client's
     * own, as lock and unlock must share one): the calls acquire makes on
     * client's registry (obtain, then lock() or tryLock with the init's
     * wait), then unlock() as release makes it, with no protocol and no
     * renewal observed; the acquire's nanoseconds. It throws when the lock
     * was refused.
     */
    long cycle(int client, String key) throws InterruptedException {
        Lock l = client(client).registry().obtain(path(key));
        long wait = waitMs();
        long t0 = System.nanoTime();
        boolean ok = true;
        if (wait < 0) {
            l.lock();
        } else {
            ok = l.tryLock(wait, TimeUnit.MILLISECONDS);
        }
        long took = System.nanoTime() - t0;
        if (!ok) {
            throw new IllegalStateException("the lock was refused on a name of the client's own");
        }
        unlock(l, false);
        return took;
    }

    /**
     * The library's unlock, on a thread interrupted just before it when the
     * release asks (a task cancelled or a service shutting down while it holds
     * the lock: unlock sees Thread.isInterrupted()). The flag is cleared
     * afterwards, whatever unlock did (7.0.5 and later set it again after
     * their wait), so that the client's thread serves on.
     */
    static void unlock(Lock l, boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            l.unlock();
        } finally {
            if (interrupted) {
                Thread.interrupted();
            }
        }
    }

    void extend(Req req) {
        if (!canExtend) {
            Out.error(req, "unsupported", true, "RedisLockRegistry " + Main.libraryVersion()
                    + " has renewLock(key) only, which renews to expireAfter; renewLock(key, ttl) came in 7.0");
            return;
        }
        Lease lease = leases.get(Lease.mapKey(req.client, req.key, req.token));
        if (lease == null) {
            Out.send(Out.reply(req, "lease_gone"));
            return;
        }
        Client c = client(req.client);
        c.thread.execute(() -> {
            long ttl = Math.max(1, Math.round(req.ttlMs));
            long t0 = System.nanoTime();
            try {
                renewLock(c.registry(), lease.path, ttl);
            } catch (Unsupported e) {
                Out.error(req, "unsupported", true, e.getMessage());
                return;
            } catch (IllegalStateException e) {
                // "Could not renew mutex at ...": the key is not the registry's
                // (the compare found another value or none); nothing changed
                Out.send(Out.reply(req, "lease_gone"));
                return;
            } catch (Throwable e) {
                fail(req, e);
                return;
            }
            ObjectNode m = Out.reply(req, "extend_ok");
            m.put("validity_ms", round3(ttl - ms(System.nanoTime() - t0)));
            Out.send(m);
        });
    }

    /**
     * renewLock(path, ttl) (7.0 and later); before 7.0 renewLock(path) only,
     * which sets expireAfter: a ttl other than that is unsupported.
     */
    void renewLock(RedisLockRegistry r, String path, long ttl) throws Unsupported {
        if (canExtend) {
            r.renewLock(path, Duration.ofMillis(ttl));
            return;
        }
        if (ttl != ttlMs) {
            throw Unsupported.unsupported("this RedisLockRegistry's renewLock(key) renews to expireAfter (" + ttlMs
                    + " ms) only; renewLock(key, ttl) came in 7.0");
        }
        r.renewLock(path);
    }

    /** Whether RedisLockRegistry has the public method (the version's API). */
    static boolean has(String method, Class<?>... params) {
        try {
            RedisLockRegistry.class.getMethod(method, params);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /**
     * Before init_ok: a few locks and unlocks of a registry of the form's own
     * (one renewLock among them), so that class loading and the first passes
     * of the JIT are not timed, and the store path the library took is known.
     * Returns the warm-up registry.
     */
    RedisLockRegistry warmUp(String key) throws Exception {
        RedisLockRegistry r = newRegistry(null);
        String path = path(key);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
        for (int i = 0; i < 300 && (i < 2 || System.nanoTime() < until); i++) {
            Lock l = ((LockRegistry<?>) r).obtain(path);
            if (!l.tryLock(0, TimeUnit.MILLISECONDS)) {
                continue;
            }
            try {
                if (i == 1 && canRenewLock) {
                    renewLock(r, path, ttlMs);
                }
            } finally {
                try {
                    l.unlock();
                } catch (ConcurrentModificationException e) {
                    // a short TTL on a loaded machine: the warm-up lock expired first
                }
            }
        }
        return r;
    }

    /** The server's redis_version (INFO server), "unknown" when not told. */
    String redisVersion() {
        try (var conn = factory.getConnection()) {
            var info = conn.serverCommands().info("server");
            String v = info == null ? null : info.getProperty("redis_version");
            return v == null ? "unknown" : v;
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    static String text(Throwable e) {
        String m = e.getMessage();
        return (e.getClass().getSimpleName() + ": " + (m == null ? "" : m)).replaceAll("\\s+", " ").trim();
    }

    /**
     * An error reply for what the library threw: indefinite, since a script
     * or DEL may have run before the failure was seen. The text names the
     * exception and its cause (CannotAcquireLockException wraps Redis's).
     */
    static void fail(Req req, Throwable e) {
        e = unwrap(e);
        String t = text(e);
        if (e instanceof CannotAcquireLockException && e.getCause() != null) {
            t += "; cause: " + text(e.getCause());
        }
        Out.error(req, "io", false, t);
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }

    static double round3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
