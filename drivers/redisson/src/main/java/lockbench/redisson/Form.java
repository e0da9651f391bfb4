package lockbench.redisson;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisTimeoutException;

import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One of the driver's forms (a name in driver.json): how it acquires,
 * releases and extends with Redisson's objects, and the leases its clients
 * hold. Every call is Redisson's async API; replies are written from the
 * callbacks, so the reader never waits for the library.
 */
abstract class Form {
    /** A client's acquire runs as this Redisson "thread" (the lock's owner is the client's id + this). */
    static final long THREAD_BASE = 1_000_000L;

    final Settings s;
    final RedissonClient redisson;
    /** The leases held, by leaseKey. */
    final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    /** What init_ok's text says of the form as it runs (redisson-observed without its observer); null: nothing. */
    String note;

    Form(Settings s, RedissonClient redisson) {
        this.s = s;
        this.redisson = redisson;
    }

    /** One held lease: the client's, of key, named token; handle is the Redisson object that took it. */
    static final class Lease {
        final int client;
        final String key;
        final String token;
        final String rawName;
        final Object handle;

        Lease(int client, String key, String token, String rawName, Object handle) {
            this.client = client;
            this.key = key;
            this.token = token;
            this.rawName = rawName;
            this.handle = handle;
        }
    }

    static String leaseKey(int client, String key, String token) {
        return client + "\u0000" + key + "\u0000" + token;
    }

    static long threadId(int client) {
        return THREAD_BASE + client;
    }

    /** A token of the driver's own for a lease that has none of the library's. */
    String newToken(int client) {
        return client + "." + seq.incrementAndGet();
    }

    /**
     * The Redisson object name of lockbench's key for the semaphore, which
     * keeps a key of its own beside it: prefix{rest}, so that Redisson's
     * derived key ({name}:timeout) keeps the prefix and the name's hash slot.
     */
    String tagged(String key) {
        return s.prefix + "{" + key.substring(s.prefix.length()) + "}";
    }

    /** The wait of a blocking acquire in ms: 0 one try, -1 no limit. */
    long waitMs() {
        if (!s.blocking()) {
            return 0;
        }
        return s.acquireTimeoutMs > 0 ? s.acquireTimeoutMs : -1;
    }

    abstract ObjectNode capabilities();

    abstract void acquire(Req req);

    abstract void release(Req req, Lease lease);

    /** A few acquires and releases of the form's own, in init, before any is measured. */
    abstract void warmUp(String key) throws Exception;

    void extend(Req req) {
        Out.error(req, "unsupported", true, "Redisson's RLock has no extend of a held lease (the watchdog renews; leaseTime is fixed at lock)");
    }

    final void release(Req req) {
        Lease lease = leases.remove(leaseKey(req.client, req.key, req.token));
        if (lease == null) {
            // not a lease this client holds: nothing is sent
            Out.send(Out.reply(req, "lease_gone"));
            return;
        }
        release(req, lease);
    }

    static ObjectNode caps(boolean extend, boolean renewal, boolean fencing, boolean semaphore) {
        ObjectNode c = Out.JSON.createObjectNode();
        c.put("extend", extend);
        c.put("renewal", renewal);
        c.put("fencing", fencing);
        c.put("semaphore", semaphore);
        c.put("blocking", true);
        c.putArray("modes").add("single").add("sentinel").add("cluster");
        return c;
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
     * An error reply for what the library threw. Always indefinite: Redisson
     * resends a command whose reply did not come (retryAttempts), so a
     * failure may follow a write that took effect.
     */
    static void fail(Req req, Throwable e) {
        e = unwrap(e);
        Out.error(req, e instanceof RedisTimeoutException ? "timeout" : "io", false, text(e));
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }

    static double round3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
