package lockbench.spring;

import lockbench.common.BareLoop;

/**
 * The driver's bare loop (docs/drivers.md, "The bare loop"), lockbench
 * calibrate --driver's reference: the form's registries built from init as
 * the driver builds them, then drivers/java-common's loop, a thread per
 * client making the driver's calls (Driver.cycle: obtain and lock, then
 * unlock, on that thread) with no protocol in the way.
 *
 * <pre>java -cp 'target/spring-redis-lock-driver.jar:target/lib/*' lockbench.spring.Bare --form spring-redis-lock</pre>
 */
public final class Bare {
    private Bare() {
    }

    public static void main(String[] args) {
        String f = Main.formOf(args);
        BareLoop.main(init -> {
            Main.logs();
            Driver d;
            try {
                d = Main.make(f, Settings.parse(init));
            } catch (Unsupported e) {
                throw new BareLoop.Refused(e.code, e.getMessage());
            }
            return new BareLoop.Setup(d::cycle, "spring-integration-redis", Main.libraryVersion());
        });
    }
}
