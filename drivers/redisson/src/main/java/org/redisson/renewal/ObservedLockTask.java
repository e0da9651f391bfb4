package org.redisson.renewal;

import org.redisson.command.CommandAsyncExecutor;

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
 * package-private renew; lockbench's driver installs it in place of the
 * LockTask the library would create (see lockbench.redisson.Watchdog).
 */
public final class ObservedLockTask extends LockTask {

    /** Told, on a Netty thread, what one watchdog round did to one lock. */
    public interface Listener {
        /** The round that started at startedNanos (System.nanoTime) renewed rawName's lease of threadId. */
        void renewed(String rawName, long threadId, long startedNanos);

        /** The watchdog found rawName no longer held by threadId and stopped renewing it. */
        void dropped(String rawName, long threadId);
    }

    private final Listener listener;

    public ObservedLockTask(long internalLockLeaseTime, CommandAsyncExecutor executor, int chunkSize, Listener listener) {
        super(internalLockLeaseTime, executor, chunkSize);
        this.listener = listener;
    }

    @Override
    CompletionStage<Void> renew(Iterator<String> names, int chunkSize) {
        long started = System.nanoTime();
        Map<String, Long> owners = new ConcurrentHashMap<>();
        Iterator<String> tap = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return names.hasNext();
            }

            @Override
            public String next() {
                String name = names.next();
                LockEntry entry = name2entry.get(name);
                Long threadId = entry == null ? null : entry.getFirstThreadId();
                if (threadId != null) {
                    owners.put(name, threadId);
                }
                return name;
            }
        };
        return super.renew(tap, chunkSize).whenComplete((unused, err) -> {
            if (err != null) {
                return; // the library logs it and tries again next round
            }
            owners.forEach((name, threadId) -> {
                LockEntry entry = name2entry.get(name);
                if (entry != null && entry.getLockName(threadId) != null) {
                    listener.renewed(name, threadId, started);
                } else {
                    listener.dropped(name, threadId);
                }
            });
        });
    }
}
