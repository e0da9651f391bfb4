package org.redisson.renewal;

import org.redisson.command.CommandAsyncExecutor;

import java.lang.reflect.Field;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Redisson's own watchdog (LockTask, unchanged: its renew runs as is) with a
 * listener told the outcome of each round for each lock it renewed: still
 * renewed, or dropped because the lock was no longer held by its owner (the
 * library then stops renewing it, silently: Redisson 3.45.1 has no renewal
 * failure listener). It lives in Redisson's package only to override the
 * package-private renew, and only in target/redisson-observe.jar, which only
 * the form redisson-observed puts on the classpath; lockbench's driver
 * installs it in place of the LockTask the library would create (see
 * lockbench.redisson.observe.Watchdog).
 *
 * <p>What it adds never changes what the library does: the names the
 * library's renew reads pass through unchanged, and should the observation
 * itself fail (a Redisson whose LockEntry differs) it stops, tells the
 * listener once, and the rounds go on as the library's own.
 */
public final class ObservedLockTask extends LockTask {

    /** Told, on a Netty thread, what one watchdog round did to one lock. */
    public interface Listener {
        /** The round that started at startedNanos (System.nanoTime) renewed rawName's lease of threadId. */
        void renewed(String rawName, long threadId, long startedNanos);

        /** The watchdog found rawName no longer held by threadId and stopped renewing it. */
        void dropped(String rawName, long threadId);

        /** The observation failed (once; none follows): the library renews on, unobserved. */
        void broken(Throwable e);
    }

    private final Listener listener;
    private volatile boolean broken;

    public ObservedLockTask(long internalLockLeaseTime, CommandAsyncExecutor executor, int chunkSize, Listener listener) {
        super(internalLockLeaseTime, executor, chunkSize);
        this.listener = listener;
    }

    /**
     * check throws unless the library's members this class reads are there,
     * of the types it was compiled against: RenewalTask.name2entry (a Map of
     * LockEntry), LockEntry.getFirstThreadId() and getLockName(long).
     */
    public static void check() throws ReflectiveOperationException {
        Field f = RenewalTask.class.getDeclaredField("name2entry");
        if (!Map.class.isAssignableFrom(f.getType())) {
            throw new NoSuchFieldException("RenewalTask.name2entry is a " + f.getType().getName() + ", not a Map");
        }
        if (LockEntry.class.getMethod("getFirstThreadId").getReturnType() != Long.class
                || LockEntry.class.getMethod("getLockName", long.class).getReturnType() != String.class) {
            throw new NoSuchMethodException("LockEntry.getFirstThreadId() or getLockName(long) changed");
        }
    }

    private void fail(Throwable e) {
        if (!broken) {
            broken = true;
            listener.broken(e);
        }
    }

    /**
     * The names of one round (or, on a cluster, of one slot) as the library's
     * renew reads them, each name's owner noted on the way. LockTask's renew
     * takes a chunk and calls renew again for the rest of the same iterator:
     * that call finds a Tap and does not wrap it again, so each lock is told
     * once a round, when the round's last chunk is done.
     */
    private final class Tap implements Iterator<String> {
        final Iterator<String> names;
        final Map<String, Long> owners = new ConcurrentHashMap<>();

        Tap(Iterator<String> names) {
            this.names = names;
        }

        @Override
        public boolean hasNext() {
            return names.hasNext();
        }

        @Override
        public String next() {
            String name = names.next();
            if (broken) {
                return name;
            }
            try {
                LockEntry entry = name2entry.get(name);
                Long threadId = entry == null ? null : entry.getFirstThreadId();
                if (threadId != null) {
                    owners.put(name, threadId);
                }
            } catch (RuntimeException | LinkageError e) {
                fail(e);
            }
            return name;
        }
    }

    @Override
    CompletionStage<Void> renew(Iterator<String> names, int chunkSize) {
        if (broken || names instanceof Tap) {
            return super.renew(names, chunkSize);
        }
        long started = System.nanoTime();
        Tap tap = new Tap(names);
        return super.renew(tap, chunkSize).whenComplete((unused, err) -> {
            if (err != null || broken) {
                return; // the library logs an error and tries again next round
            }
            try {
                tap.owners.forEach((name, threadId) -> {
                    LockEntry entry = name2entry.get(name);
                    if (entry != null && entry.getLockName(threadId) != null) {
                        listener.renewed(name, threadId, started);
                    } else {
                        listener.dropped(name, threadId);
                    }
                });
            } catch (RuntimeException | LinkageError e) {
                fail(e);
            }
        });
    }
}
