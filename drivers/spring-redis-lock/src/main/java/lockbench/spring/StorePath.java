package lockbench.spring;

import org.springframework.integration.redis.util.RedisLockRegistry;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Which commands the registry's release and renewal use: since 7.1
 * RedisLockRegistry tries Redis 8.4's {@code DELEX key IFEQ id} (spin
 * release) and {@code SET key id IFEQ id PX ttl} (renewal, renewLock) first,
 * and on an error whose cause says "ERR syntax error" or "ERR unknown command"
 * it logs "CAS/CAD for value operations not supported, falling back to Lua
 * script" (INFO) and sets its private supportsCasCadOperations to false: from
 * then on that registry uses its Lua scripts. The flag is per registry, so
 * every client's registry makes that one refused try itself. Acquire is the
 * Lua script in every version; the pub/sub release (UNLINK and PUBLISH) too.
 *
 * The driver learns the path from the library itself: the log record (a
 * java.util.logging handler on the registry's logger: commons-logging,
 * spring-jcl before Spring 7, writes there when no other logging backend is
 * on the classpath), and, read without changing it, the flag of the warm-up
 * registry after its lock, renewLock and unlock.
 */
final class StorePath {
    static final String LOGGER = "org.springframework.integration.redis.util.RedisLockRegistry";
    /** The fallbacks the library announced, with their causes, since start. */
    static final List<String> fallbacks = new CopyOnWriteArrayList<>();
    /** Keeps the logger (and its handler) from being collected. */
    private static Logger logger;

    private StorePath() {
    }

    /**
     * Installs the handler; before any registry is made. The registry's
     * records go to it alone, each as one line on stderr: the fallback's
     * (logged with its stack trace, once per registry, so once per client)
     * the first three times only.
     */
    static void watch() {
        logger = Logger.getLogger(LOGGER);
        logger.setUseParentHandlers(false);
        logger.addHandler(new Handler() {
            @Override
            public void publish(LogRecord r) {
                String m = r.getMessage();
                Throwable t = r.getThrown();
                String cause = t == null ? "" : Driver.text(t.getCause() != null ? t.getCause() : t);
                if (m != null && m.contains("CAS/CAD")) {
                    fallbacks.add(cause);
                    if (fallbacks.size() > 3) {
                        return;
                    }
                }
                Out.log("RedisLockRegistry " + r.getLevel() + ": " + m + (cause.isEmpty() ? "" : " (" + cause + ")"));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        logger.setLevel(Level.INFO);
    }

    /** Whether this version has the SET IFEQ / DELEX path (the field came with it, in 7.1). */
    static boolean versionHasCasCad() {
        try {
            RedisLockRegistry.class.getDeclaredField("supportsCasCadOperations");
            return true;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    /** The warm-up registry's flag after the warm-up: null when it cannot be read. */
    static Boolean flag(RedisLockRegistry r) {
        try {
            Field f = RedisLockRegistry.class.getDeclaredField("supportsCasCadOperations");
            f.setAccessible(true);
            return f.getBoolean(r);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * init_ok's text: the library's version, the server's, and the commands
     * each operation used, as the warm-up registry (lock, renewLock, unlock)
     * found them.
     */
    static String note(String version, String redisVersion, boolean pubsub, RedisLockRegistry warm) {
        String release = pubsub ? "release the Lua UNLINK+PUBLISH script (every version)" : null;
        if (!versionHasCasCad()) {
            return "store path: Lua scripts only: spring-integration-redis " + version + " has no SET IFEQ/DELEX path (it came in 7.1); "
                    + "acquire, release and renewal (6.4 and later) are the registry's Lua scripts on Redis " + redisVersion;
        }
        Boolean flag = flag(warm);
        String seen = fallbacks.isEmpty() ? "" : " (" + fallbacks.get(0).replaceAll(", with args beginning with:.*", "") + ")";
        if (Boolean.FALSE.equals(flag) || !fallbacks.isEmpty()) {
            return "store path: Lua: spring-integration-redis " + version + " tried Redis 8.4's "
                    + (pubsub ? "SET IFEQ (renewLock)" : "DELEX IFEQ (unlock)") + " at warm-up, Redis " + redisVersion
                    + " refused it" + seen + ", and the registry fell back to its Lua scripts (supportsCasCadOperations="
                    + flag + "); acquire is Lua in every version" + (release != null ? ", " + release : "")
                    + "; each client's registry makes that one refused try itself on its first "
                    + (pubsub ? "renewal or extend" : "release or renewal");
        }
        return "store path: SET IFEQ / DELEX: Redis " + redisVersion + " accepted " + (pubsub ? "SET IFEQ (renewLock)" : "DELEX IFEQ (unlock) and SET IFEQ (renewLock)")
                + " at warm-up (supportsCasCadOperations=" + flag + "); acquire is Lua in every version" + (release != null ? ", " + release : "");
    }
}
