package lockbench.spring;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

/**
 * One lease a client holds: the registry's lock object of the key, the
 * driver's token for it (RedisLockRegistry has none: the value in Redis is
 * the registry's client id), and whether it is still the client's. A lease
 * stops being active when its release is asked or its renewal was seen to
 * fail; renewal notices are sent for active leases only.
 */
final class Lease {
    final int client;
    final String key;
    final String token;
    /** The registry's path of the key (the part after the registry key and its ':'). */
    final String path;
    /** The lease time it was taken with, ms: expireAfter. */
    final long ttlMs;
    /** The registry's lock object; set once acquired. */
    volatile Lock lock;
    private final AtomicBoolean active = new AtomicBoolean(true);

    Lease(int client, String key, String token, String path, long ttlMs) {
        this.client = client;
        this.key = key;
        this.token = token;
        this.path = path;
        this.ttlMs = ttlMs;
    }

    static String mapKey(int client, String key, String token) {
        return client + "\u0000" + key + "\u0000" + token;
    }

    String mapKey() {
        return mapKey(client, key, token);
    }

    boolean active() {
        return active.get();
    }

    /** Ends the lease's notices; true the first time. */
    boolean end() {
        return active.compareAndSet(true, false);
    }
}
