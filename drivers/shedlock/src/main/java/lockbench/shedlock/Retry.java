package lockbench.shedlock;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The driver's own retry loop between ShedLock's lock() calls, as a user's
 * code would write it: ShedLock has no wait (lock() is one SET NX PX and
 * returns Optional.empty() when the lock is held), so every kind that waits
 * is lockbench's policy, done here exactly as lockbench's own variants do it
 * (variants.RetryPolicy.Delay). "none" and "library" are one lock() call:
 * "library" is ShedLock's own behaviour, which retries nothing (a scheduled
 * job whose lock is held skips that run).
 */
record Retry(String kind, long minNanos, long maxNanos) {
    static final List<String> KINDS = List.of("none", "spin", "fixed", "exp", "random", "library");

    static Retry parse(JsonNode r) throws Unsupported {
        String kind = r.path("kind").asText("library");
        if (!KINDS.contains(kind)) {
            throw Unsupported.malformed("init: unknown retry kind \"" + kind + "\" (known: " + String.join(", ", KINDS) + ")");
        }
        long min = nanos(r.path("min_ms").asDouble(0));
        long max = nanos(r.path("max_ms").asDouble(0));
        if (List.of("fixed", "exp", "random").contains(kind) && (min <= 0 || max < min)) {
            throw Unsupported.malformed("init: retry " + kind + " needs 0 < min_ms <= max_ms, got " + r.path("min_ms") + " and " + r.path("max_ms"));
        }
        return new Retry(kind, min, max);
    }

    private static long nanos(double ms) {
        return Math.round(ms * 1e6);
    }

    /** Whether an acquire waits for a held lock: the driver's loop runs (every kind but none and library). */
    boolean waits() {
        return !kind.equals("none") && !kind.equals("library");
    }

    /**
     * The pause before try number attempt+1 (attempt counts from 0), in
     * nanoseconds: fixed min; random uniform in [min, max]; exp doubles from
     * min up to max and keeps half the pause fixed, half random (equal
     * jitter); spin none.
     */
    long delayNanos(int attempt) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        switch (kind) {
            case "fixed":
                return minNanos;
            case "random":
                return minNanos + r.nextLong(maxNanos - minNanos + 1);
            case "exp": {
                long d = maxNanos;
                if (attempt < 63 && minNanos <= (maxNanos >> attempt)) {
                    d = minNanos << attempt;
                }
                long half = d / 2;
                return half + r.nextLong(d - half + 1);
            }
            default:
                return 0;
        }
    }

    @Override
    public String toString() {
        return switch (kind) {
            case "fixed" -> "fixed:" + minNanos / 1e6 + "ms";
            case "exp", "random" -> kind + ":" + minNanos / 1e6 + "ms-" + maxNanos / 1e6 + "ms";
            default -> kind;
        };
    }
}
