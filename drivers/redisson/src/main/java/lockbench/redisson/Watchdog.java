package lockbench.redisson;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.renewal.LockRenewalScheduler;
import org.redisson.renewal.LockTask;
import org.redisson.renewal.ObservedLockTask;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Tells lockbench what Redisson's watchdog does to the leases the driver's
 * clients hold: renewed after each round that renewed one (with the
 * validity it left), lease_lost when the watchdog found one no longer held
 * and stopped renewing it. The watchdog is the library's (ObservedLockTask
 * runs LockTask's renew unchanged); this only listens.
 */
final class Watchdog implements ObservedLockTask.Listener {
    private final long timeoutMs;
    /** The leases held under the watchdog, by rawName and thread id. */
    private final Map<String, Form.Lease> held = new ConcurrentHashMap<>();

    private Watchdog(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /** install puts an ObservedLockTask where the library would create its LockTask. */
    @SuppressWarnings("unchecked")
    static Watchdog install(RedissonClient client) throws ReflectiveOperationException {
        Redisson r = (Redisson) client;
        long timeout = r.getServiceManager().getCfg().getLockWatchdogTimeout();
        int batch = r.getServiceManager().getCfg().getLockWatchdogBatchSize();
        Watchdog w = new Watchdog(timeout);
        LockRenewalScheduler sched = r.getServiceManager().getRenewalScheduler();
        Field f = LockRenewalScheduler.class.getDeclaredField("reference");
        f.setAccessible(true);
        AtomicReference<LockTask> ref = (AtomicReference<LockTask>) f.get(sched);
        if (!ref.compareAndSet(null, new ObservedLockTask(timeout, r.getCommandExecutor(), batch, w))) {
            throw new IllegalStateException("Redisson's watchdog task already exists");
        }
        return w;
    }

    private static String id(String rawName, long threadId) {
        return rawName + "\u0000" + threadId;
    }

    void hold(String rawName, long threadId, Form.Lease lease) {
        held.put(id(rawName, threadId), lease);
    }

    void drop(String rawName, long threadId) {
        held.remove(id(rawName, threadId));
    }

    @Override
    public void renewed(String rawName, long threadId, long startedNanos) {
        Form.Lease l = held.get(id(rawName, threadId));
        if (l == null) {
            return;
        }
        ObjectNode m = Out.msg("renewed");
        m.put("client", l.client);
        m.put("token", l.token);
        // the PEXPIRE was sent after the round started
        m.put("validity_ms", Form.round3(timeoutMs - Form.ms(System.nanoTime() - startedNanos)));
        Out.send(m);
    }

    @Override
    public void dropped(String rawName, long threadId) {
        Form.Lease l = held.remove(id(rawName, threadId));
        if (l == null) {
            return;
        }
        ObjectNode m = Out.msg("lease_lost");
        m.put("client", l.client);
        m.put("token", l.token);
        m.put("text", "Redisson's watchdog found the lock no longer held and stopped renewing it");
        Out.send(m);
    }
}
