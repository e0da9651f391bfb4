package lockbench.redisson;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.redisson.api.RedissonClient;

import java.lang.reflect.InvocationTargetException;

/**
 * The seam between the driver (target/redisson-driver.jar, Redisson's public
 * API only) and the watchdog observer of redisson-observed
 * (target/redisson-observe.jar: lockbench.redisson.observe.Watchdog and
 * org.redisson.renewal.ObservedLockTask, which reach into Redisson's
 * internals). The driver has no compile-time tie to that jar: it loads the
 * observer by name, and runs without it, saying why, when the jar is not on
 * the classpath or the Redisson loaded is not one the observer fits.
 */
public final class Observation {
    /** The observer's class, in target/redisson-observe.jar. */
    static final String OBSERVER = "lockbench.redisson.observe.Watchdog";

    private Observation() {
    }

    /** What the observer is told of the leases the driver's clients hold under the watchdog. */
    public interface Watch {
        /** client holds rawName as Redisson's threadId, named token. */
        void hold(String rawName, long threadId, int client, String token);

        /** The lease of rawName by threadId is being released: nothing more is to be said of it. */
        void drop(String rawName, long threadId);
    }

    /** What the observer tells lockbench, from the library's threads. */
    public interface Sink {
        /** The watchdog renewed client's lease token, which has validityMs left. */
        void renewed(int client, String token, double validityMs);

        /** The watchdog found client's lease token no longer held and stopped renewing it. */
        void lost(int client, String token, String text);

        /** The observer stopped working mid-run (text says why): no more notices come. */
        void broken(String text);
    }

    /** An installed observer, or why there is none. */
    static final class Result {
        /** The observer; null when there is none. */
        final Watch watch;
        /** Why there is no observer; null when there is one. */
        final String note;

        private Result(Watch watch, String note) {
            this.watch = watch;
            this.note = note;
        }
    }

    /** The Sink that writes notices to lockbench, as protocol lines. */
    static final Sink OUT = new Sink() {
        @Override
        public void renewed(int client, String token, double validityMs) {
            ObjectNode m = Out.msg("renewed");
            m.put("client", client);
            m.put("token", token);
            m.put("validity_ms", Form.round3(validityMs));
            Out.send(m);
        }

        @Override
        public void lost(int client, String token, String text) {
            ObjectNode m = Out.msg("lease_lost");
            m.put("client", client);
            m.put("token", token);
            m.put("text", text);
            Out.send(m);
        }

        @Override
        public void broken(String text) {
            Out.log("the watchdog observer stopped; no more renewed or lease_lost notices: " + text);
        }
    };

    /**
     * install puts the observer on client's watchdog, before its first lock.
     * Whatever fails (the jar missing, a Redisson whose renewal internals
     * differ: a class, field, method or constructor missing or changed) is
     * not the run's failure: the result then has no watch and a note, and
     * the form runs as Redisson ships.
     */
    static Result install(RedissonClient client, Sink sink) {
        try {
            Class<?> c = Class.forName(OBSERVER);
            Object w = c.getMethod("install", RedissonClient.class, Sink.class).invoke(null, client, sink);
            return new Result((Watch) w, null);
        } catch (ClassNotFoundException e) {
            return none("the observer " + OBSERVER + " is not on the classpath (target/redisson-observe.jar)");
        } catch (InvocationTargetException e) {
            return none(Form.text(e.getCause() == null ? e : e.getCause()));
        } catch (Exception | LinkageError e) {
            return none(Form.text(e));
        }
    }

    private static Result none(String why) {
        String note = "no watchdog observation on Redisson " + Main.redissonVersion()
                + ": " + why + "; Redisson's watchdog renews as shipped, unobserved (no renewed or lease_lost notices)";
        Out.log(note);
        return new Result(null, note);
    }
}
