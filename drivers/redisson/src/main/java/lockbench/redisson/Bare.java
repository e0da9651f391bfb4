package lockbench.redisson;

import lockbench.common.BareLoop;

/**
 * The driver's bare loop (docs/drivers.md, "The bare loop"), lockbench
 * calibrate --driver's reference: the form built from init as the driver
 * builds it, then drivers/java-common's loop, a thread per client making
 * the form's own calls (LockForm.cycle: lock, then unlock, as the client's
 * Redisson thread id) and waiting for each, as an application's worker
 * calls lock() and unlock(): the calls leave the thread for Redisson's event
 * loop and their answers come back to it. Lock forms only:
 * redisson-semaphore answers unsupported.
 *
 * <pre>java -cp 'target/redisson-driver.jar:target/lib/*' lockbench.redisson.Bare --form redisson</pre>
 */
public final class Bare {
    private Bare() {
    }

    public static void main(String[] args) {
        String f = Main.formOf(args);
        BareLoop.main(init -> {
            Form form;
            try {
                form = Forms.make(f, Settings.parse(init));
            } catch (Unsupported e) {
                throw new BareLoop.Refused(e.code, e.getMessage());
            }
            if (!(form instanceof LockForm lock)) {
                throw new BareLoop.Refused("unsupported", f + " has no bare loop (the lock forms have)");
            }
            return new BareLoop.Setup((client, key) -> lock.cycle(client, key).toCompletableFuture().get(), "redisson", Main.redissonVersion());
        });
    }
}
