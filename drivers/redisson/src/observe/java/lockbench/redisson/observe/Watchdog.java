package lockbench.redisson.observe;

import lockbench.redisson.Observation;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.renewal.LockRenewalScheduler;
import org.redisson.renewal.LockTask;
import org.redisson.renewal.ObservedLockTask;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * redisson-observed's listener (target/redisson-observe.jar, loaded by name
 * from lockbench.redisson.Observation): tells lockbench what Redisson's
 * watchdog does to the leases the driver's clients hold: renewed after each
 * round that renewed one (with the validity it left), lease_lost when the
 * watchdog found one no longer held and stopped renewing it. The watchdog is
 * the library's (ObservedLockTask runs LockTask's renew unchanged); this only
 * listens. It fits the renewal package of Redisson 3.44 to 3.46 at least
 * (LockRenewalScheduler.reference, LockTask's renew(Iterator, int)); on any
 * other shape install throws, and the driver runs without it.
 */
public final class Watchdog implements ObservedLockTask.Listener, Observation.Watch {
    private final long timeoutMs;
    private final Observation.Sink sink;
    /** The leases held under the watchdog, by rawName and thread id. */
    private final Map<String, Held> held = new ConcurrentHashMap<>();

    private Watchdog(long timeoutMs, Observation.Sink sink) {
        this.timeoutMs = timeoutMs;
        this.sink = sink;
    }

    private static final class Held {
        final int client;
        final String token;

        Held(int client, String token) {
            this.client = client;
            this.token = token;
        }
    }

    /**
     * install puts an ObservedLockTask where the library would create its
     * LockTask, before the first lock. It checks first that the library's
     * LockTask is the one ObservedLockTask extends: its renew(Iterator, int)
     * declared there (else the override would never run), the scheduler's
     * private reference an empty AtomicReference.
     */
    @SuppressWarnings("unchecked")
    public static Observation.Watch install(RedissonClient client, Observation.Sink sink) throws ReflectiveOperationException {
        Method renew = LockTask.class.getDeclaredMethod("renew", Iterator.class, int.class);
        if (renew.getReturnType() != CompletionStage.class || Modifier.isPrivate(renew.getModifiers())
                || Modifier.isFinal(renew.getModifiers())) {
            throw new IllegalStateException("LockTask.renew is not the package-private CompletionStage renew(Iterator, int) ObservedLockTask overrides: " + renew);
        }
        ObservedLockTask.check();
        Redisson r = (Redisson) client;
        long timeout = r.getServiceManager().getCfg().getLockWatchdogTimeout();
        int batch = r.getServiceManager().getCfg().getLockWatchdogBatchSize();
        Watchdog w = new Watchdog(timeout, sink);
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

    @Override
    public void hold(String rawName, long threadId, int client, String token) {
        held.put(id(rawName, threadId), new Held(client, token));
    }

    @Override
    public void drop(String rawName, long threadId) {
        held.remove(id(rawName, threadId));
    }

    @Override
    public void renewed(String rawName, long threadId, long startedNanos) {
        Held h = held.get(id(rawName, threadId));
        if (h == null) {
            return;
        }
        // the PEXPIRE was sent after the round started
        sink.renewed(h.client, h.token, timeoutMs - (System.nanoTime() - startedNanos) / 1e6);
    }

    @Override
    public void dropped(String rawName, long threadId) {
        Held h = held.remove(id(rawName, threadId));
        if (h == null) {
            return;
        }
        sink.lost(h.client, h.token, "Redisson's watchdog found the lock no longer held and stopped renewing it");
    }

    @Override
    public void broken(Throwable e) {
        held.clear();
        sink.broken(e.toString());
    }
}
