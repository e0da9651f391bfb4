package lockbench.spring;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The TaskScheduler one client's registry renews on (setRenewalTaskScheduler,
 * the library's public plug-in point): Spring's ThreadPoolTaskScheduler, as
 * users pass, with each renewal task the registry schedules wrapped so that
 * the driver sees every round. Nothing of the library is changed or read: the
 * registry schedules {@code renew(expireAfter)} with a fixed delay of a third
 * of expireAfter on the acquiring thread (the client's own) as tryLock
 * succeeds; a round that finds the lock no longer the registry's cancels its
 * own future (stopRenew) and the renewals end. So after each round: the
 * future cancelled → lease_lost; otherwise → renewed, validity expireAfter
 * less the time since the round began. A round that threw (Redis unreachable)
 * is logged and reported as neither: the scheduler's error handler swallows
 * it and the library renews again at the next delay.
 */
final class Renewals implements TaskScheduler {
    private final ThreadPoolTaskScheduler pool;
    /** The lease the client's thread is acquiring now, set before its tryLock. */
    private final ThreadLocal<Lease> pending = new ThreadLocal<>();

    Renewals(ThreadPoolTaskScheduler pool) {
        this.pool = pool;
    }

    /** Shared by every client's Renewals: pool threads "renew-N". */
    static ThreadPoolTaskScheduler pool(int clients) {
        ThreadPoolTaskScheduler p = new ThreadPoolTaskScheduler();
        p.setPoolSize(Math.max(1, Math.min(4, clients)));
        p.setThreadNamePrefix("renew-");
        p.setDaemon(true);
        p.initialize();
        return p;
    }

    /** The lease of the tryLock about to run on this thread (null after). */
    void acquiring(Lease lease) {
        if (lease == null) {
            pending.remove();
        } else {
            pending.set(lease);
        }
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
        Lease lease = pending.get();
        if (lease == null) {
            // not one of the client's acquires (a lock taken some other way): as is
            return pool.scheduleWithFixedDelay(task, delay);
        }
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        ScheduledFuture<?> f = pool.scheduleWithFixedDelay(() -> round(lease, task, self), delay);
        self.set(f);
        return f;
    }

    private static void round(Lease lease, Runnable task, AtomicReference<ScheduledFuture<?>> self) {
        long t0 = System.nanoTime();
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            if (lease.active()) {
                Out.log("renewal of " + lease.key + " (client " + lease.client + ") threw: " + Driver.text(Driver.unwrap(e)) + "; the library renews again after its delay");
            }
            throw e;
        }
        double took = (System.nanoTime() - t0) / 1e6;
        ScheduledFuture<?> f = self.get();
        if (f != null && f.isCancelled()) {
            // the round found the key no longer the registry's (stopRenew);
            // the library stops renewing and tells no one
            Thread.interrupted(); // cancel(true) interrupted this pool thread
            if (lease.end()) {
                ObjectNode m = Out.msg("lease_lost");
                m.put("client", lease.client);
                m.put("token", lease.token);
                m.put("text", "RedisLockRegistry's renewal found the lock no longer held by its registry and stopped renewing it");
                Out.send(m);
            }
            return;
        }
        if (lease.active()) {
            ObjectNode m = Out.msg("renewed");
            m.put("client", lease.client);
            m.put("token", lease.token);
            m.put("validity_ms", Driver.round3(Math.max(0, lease.ttlMs - took)));
            Out.send(m);
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
        return pool.schedule(task, trigger);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
        return pool.schedule(task, startTime);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
        return pool.scheduleAtFixedRate(task, startTime, period);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
        return pool.scheduleAtFixedRate(task, period);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
        return pool.scheduleWithFixedDelay(task, startTime, delay);
    }
}
