package lockbench.redisson;

import org.redisson.api.RedissonClient;

/**
 * Builds the form a driver.json name asks for, from init's settings, refusing
 * what it cannot serve. Every form runs Redisson as shipped, through its
 * public API; redisson-observed adds the watchdog observer of
 * target/redisson-observe.jar (Observation), when the classpath has it and it
 * fits the Redisson loaded.
 */
final class Forms {
    /** Redisson's own lockWatchdogTimeout, when init gives no TTL. */
    static final long DEFAULT_WATCHDOG_MS = 30_000;

    private Forms() {
    }

    static Form make(String name, Settings s) throws Exception {
        boolean semaphore = name.equals("redisson-semaphore");
        if (s.limit > 1 && !semaphore) {
            throw Unsupported.unsupported(name + " is a mutex: limit " + s.limit + " (a semaphore) is not supported; redisson-semaphore is");
        }
        long ttl = s.ttlMs;
        Form form;
        switch (name) {
            case "redisson":
            case "redisson-unsynced":
            case "redisson-observed":
            case "redisson-reentrant": {
                // the watchdog's timeout is lockbench's TTL: each lock is set for
                // it and renewed every third of it while held
                long wd = ttl > 0 ? ttl : DEFAULT_WATCHDOG_MS;
                RedissonClient r = Connect.client(s, wd, name.equals("redisson-unsynced"));
                Observation.Watch watch = null;
                String note = null;
                if (name.equals("redisson-observed")) {
                    // before the first lock (the warm-up's): the observer takes
                    // the place of the watchdog task the library creates then
                    Observation.Result o = Observation.install(r, Observation.OUT);
                    watch = o.watch;
                    note = o.note;
                }
                int depth = name.equals("redisson-reentrant") ? 2 : 1;
                form = new LockForm(LockForm.Kind.WATCHDOG, s, r, -1, wd, watch, depth);
                form.note = note;
                break;
            }
            case "redisson-lease": {
                if (s.renew) {
                    throw Unsupported.unsupported("redisson-lease locks with leaseTime, which turns Redisson's watchdog off; the renewing form is the name redisson");
                }
                if (ttl <= 0) {
                    throw Unsupported.unsupported("redisson-lease needs a lease time: ttl_ms must be > 0 (0 would be the watchdog, the name redisson)");
                }
                form = new LockForm(LockForm.Kind.LEASE, s, Connect.client(s, 0, false), ttl, ttl, null);
                break;
            }
            case "redisson-fenced": {
                if (s.renew || ttl <= 0) {
                    long wd = ttl > 0 ? ttl : DEFAULT_WATCHDOG_MS;
                    RedissonClient r = Connect.client(s, wd, false);
                    form = new LockForm(LockForm.Kind.FENCED, s, r, -1, wd, null);
                } else {
                    form = new LockForm(LockForm.Kind.FENCED, s, Connect.client(s, 0, false), ttl, ttl, null);
                }
                break;
            }
            case "redisson-semaphore": {
                if (s.renew) {
                    throw Unsupported.unsupported("RPermitExpirableSemaphore has no automatic renewal (updateLeaseTime is manual: extend)");
                }
                form = new SemaphoreForm(s, Connect.client(s, 0, false));
                break;
            }
            default:
                throw Unsupported.unsupported("unknown form " + name);
        }
        // the JIT's first compilations of the library's lock path, before
        // init_ok and so before anything is timed (lockbench's --warmup does the rest)
        // a key of this process's own (the processes of a cell start at once)
        form.warmUp(s.prefix + "redisson-warmup-" + java.util.UUID.randomUUID());
        return form;
    }
}
