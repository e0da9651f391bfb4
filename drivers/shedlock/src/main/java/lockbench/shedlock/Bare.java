package lockbench.shedlock;

import lockbench.common.BareLoop;

/**
 * The driver's bare loop (docs/drivers.md, "The bare loop"), lockbench
 * calibrate --driver's reference: the form's RedisLockProvider built from
 * init as the driver builds it, then drivers/java-common's loop, a thread
 * per client making the driver's calls (Driver.cycle: lock(), then the
 * SimpleLock's unlock()) with no protocol in the way.
 *
 * <pre>java -cp 'target/shedlock-driver.jar:target/lib/*' lockbench.shedlock.Bare --form shedlock</pre>
 */
public final class Bare {
    private Bare() {
    }

    public static void main(String[] args) {
        String f = Main.formOf(args);
        BareLoop.main(init -> {
            Driver d;
            try {
                d = Driver.make(f, Settings.parse(init));
            } catch (Unsupported e) {
                throw new BareLoop.Refused(e.code, e.getMessage());
            }
            return new BareLoop.Setup((client, key) -> d.cycle(key), "shedlock", Main.shedlockVersion());
        });
    }
}
