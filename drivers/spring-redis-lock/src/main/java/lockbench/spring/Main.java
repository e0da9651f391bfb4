package lockbench.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.TaskScheduler;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * lockbench's lock driver for Spring Integration's RedisLockRegistry
 * (protocol 1, docs/drivers.md): one JVM, every client a thread of its own,
 * and a registry of its own, or in spring-redis-lock-shared one registry for
 * all (Driver). The main thread only reads stdin and hands each
 * request to its client's thread; replies are written from there. The library
 * comes from the classpath, at whatever version it holds (init_ok says which):
 *
 * <pre>java -cp 'target/spring-redis-lock-driver.jar:target/lib/*' lockbench.spring.Main --form spring-redis-lock|spring-redis-lock-pubsub|spring-redis-lock-renew|spring-redis-lock-pubsub-renew|spring-redis-lock-shared</pre>
 */
public final class Main {
    /** The form whose clients are sibling threads of one registry (Driver). */
    static final String SHARED = "spring-redis-lock-shared";
    static final List<String> FORMS = List.of("spring-redis-lock", "spring-redis-lock-pubsub", "spring-redis-lock-renew",
            "spring-redis-lock-pubsub-renew", SHARED);

    private final String formName;
    private Driver form;

    private Main(String formName) {
        this.formName = formName;
    }

    public static void main(String[] args) throws Exception {
        String f = formOf(args);
        Out.init();
        logs();
        new Main(f).serve();
    }

    /** The process's logging, before any registry is made (the driver's and its bare loop's). */
    static void logs() {
        oneLineLogs();
        // a task of the library's that threw on a thread of its own (7.0.4's
        // interrupted unlock runs its delete on the registry's executor, whose
        // ConcurrentModificationException no caller sees): one line on stderr
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> Out.log("uncaught in thread " + t.getName() + ": " + Driver.text(e)));
        StorePath.watch();
    }

    /** The --form of args (spring-redis-lock without one); an unknown one exits 2. */
    static String formOf(String[] args) {
        String f = "spring-redis-lock";
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--form")) {
                f = args[i + 1];
            }
        }
        if (!FORMS.contains(f)) {
            System.err.println("spring-redis-lock driver: unknown --form " + f + " (known: " + String.join(", ", FORMS) + ")");
            System.exit(2);
        }
        return f;
    }

    /**
     * java.util.logging, where the library, Spring, Lettuce and Netty write
     * here (slf4j-jdk14): one line a record on stderr, a stack trace as its
     * chain of causes, so that lockbench's last 20 lines of stderr say what
     * happened.
     */
    private static void oneLineLogs() {
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        for (java.util.logging.Handler h : root.getHandlers()) {
            h.setFormatter(new java.util.logging.Formatter() {
                @Override
                public String format(java.util.logging.LogRecord r) {
                    StringBuilder b = new StringBuilder("spring-redis-lock driver: ").append(r.getLevel()).append(' ')
                            .append(r.getLoggerName()).append(": ").append(formatMessage(r));
                    for (Throwable t = r.getThrown(); t != null; t = t.getCause()) {
                        b.append(" <- ").append(Driver.text(t));
                    }
                    return b.append('\n').toString();
                }
            });
        }
    }

    private void serve() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                continue;
            }
            try {
                handle(line);
            } catch (RuntimeException e) {
                Out.log("a driver bug on " + line + ": " + e);
                e.printStackTrace();
            }
        }
        // stdin closed: leave at once; held leases expire by themselves
        Runtime.getRuntime().halt(0);
    }

    private void handle(String line) {
        JsonNode req;
        try {
            req = Out.JSON.readTree(line);
        } catch (Exception e) {
            Out.malformed("not JSON: " + Driver.text(e), null, null);
            return;
        }
        if (req == null || !req.isObject()) {
            Out.malformed("not a JSON object", null, null);
            return;
        }
        JsonNode cl = req.get("client");
        Integer client = cl != null && cl.canConvertToInt() && cl.isIntegralNumber() ? cl.asInt() : null;
        JsonNode idn = req.get("id");
        if (idn == null || !idn.isIntegralNumber()) {
            Out.malformed("id missing or not an integer", null, client);
            return;
        }
        long id = idn.asLong();
        String type = req.path("type").asText("");
        if (type.equals("init")) {
            init(id, req);
            return;
        }
        if (type.equals("clock") && client != null && client >= 0) {
            // the wall clock as Redisson reads it (the clock shim's
            // clock_gettime when lockbench moves this process's clock)
            ObjectNode ok = Out.JSON.createObjectNode();
            ok.put("type", "clock_ok").put("in_reply_to", id).put("client", client).put("now_ms", System.currentTimeMillis());
            Out.send(ok);
            return;
        }
        if (!List.of("acquire", "release", "extend").contains(type)) {
            Out.malformed("unknown type " + req.path("type"), id, client);
            return;
        }
        if (client == null || client < 0) {
            Out.malformed(type + ": client missing or not an integer >= 0", id, null);
            return;
        }
        String bad = missing(type, req);
        if (bad != null) {
            Out.malformed(type + ": field " + bad + " missing or of the wrong type", id, client);
            return;
        }
        if (form == null) {
            Out.malformed(type + " before init", id, client);
            return;
        }
        String key = req.get("key").asText();
        if (!key.startsWith(form.s.prefix)) {
            Out.malformed("key \"" + key + "\" does not start with the prefix \"" + form.s.prefix + "\"", id, client);
            return;
        }
        Req r = new Req(id, client, type, key, req.path("token").asText(null), req.path("ttl_ms").asDouble(0),
                req.path("interrupt").asBoolean(false));
        try {
            switch (type) {
                case "acquire":
                    form.acquire(r);
                    break;
                case "release":
                    form.release(r);
                    break;
                default:
                    form.extend(r);
            }
        } catch (RuntimeException e) {
            Out.log(type + " client " + client + ": " + e);
            Out.error(r, "crash", false, Driver.text(e));
        }
    }

    private static String missing(String type, JsonNode req) {
        StringBuilder bad = new StringBuilder();
        if (!req.path("key").isTextual()) {
            bad.append("key");
        }
        if (!type.equals("acquire") && !req.path("token").isTextual()) {
            bad.append(bad.length() > 0 ? ", " : "").append("token");
        }
        if (type.equals("extend") && !req.path("ttl_ms").isNumber()) {
            bad.append(bad.length() > 0 ? ", " : "").append("ttl_ms");
        }
        if (req.has("interrupt") && !req.get("interrupt").isBoolean()) {
            bad.append(bad.length() > 0 ? ", " : "").append("interrupt");
        }
        return bad.length() == 0 ? null : bad.toString();
    }

    private void init(long id, JsonNode req) {
        if (form != null) {
            Out.malformed("init sent twice", id, null);
            return;
        }
        ObjectNode err = Out.msg("error");
        err.put("in_reply_to", id);
        err.put("definite", true);
        try {
            form = make(formName, Settings.parse(req));
        } catch (Unsupported e) {
            err.put("code", e.code);
            err.put("text", e.getMessage());
            Out.send(err);
            return;
        } catch (Exception e) {
            Out.log("init: " + e);
            err.put("code", "io");
            err.put("text", Driver.text(Driver.unwrap(e)));
            Out.send(err);
            return;
        }
        ObjectNode ok = Out.msg("init_ok");
        ok.put("in_reply_to", id);
        ok.put("library", "spring-integration-redis");
        ok.put("version", libraryVersion());
        ok.put("language", "java " + System.getProperty("java.version"));
        ok.set("capabilities", form.capabilities());
        if (form.note != null) {
            ok.put("text", form.note);
        }
        Out.send(ok);
    }

    /**
     * The form init asks for, or Unsupported: a semaphore, renewal from a
     * form without it (or a version without setRenewalTaskScheduler).
     */
    static Driver make(String name, Settings s) throws Exception {
        boolean pubsub = name.contains("-pubsub");
        boolean renew = name.endsWith("-renew");
        boolean shared = name.equals(SHARED);
        if (s.limit > 1) {
            throw Unsupported.unsupported("RedisLockRegistry is a mutex: limit " + s.limit + " (a semaphore) is not supported");
        }
        if (s.renew && !renew) {
            throw Unsupported.unsupported(name + " does not renew (no renewal TaskScheduler); the renewing form is "
                    + (shared ? "spring-redis-lock-renew (a registry per client)" : name + "-renew"));
        }
        String version = libraryVersion();
        if (renew && !Driver.has("setRenewalTaskScheduler", TaskScheduler.class)) {
            throw Unsupported.unsupported("spring-integration-redis " + version + " has no RedisLockRegistry.setRenewalTaskScheduler (it came in 6.4): no renewal");
        }
        LettuceConnectionFactory f = Connect.factory(s);
        Driver d = new Driver(s, pubsub, renew, shared, f);
        // a key of this process's own (the processes of a cell start at once)
        RedisLockRegistry warm = d.warmUp(s.prefix + "spring-warmup-" + java.util.UUID.randomUUID());
        d.note = StorePath.note(version, d.redisVersion(), pubsub, warm);
        if (shared) {
            d.note = d.note.replace("each client's registry makes", "the process's registry makes")
                    + "; one RedisLockRegistry for the " + s.clients + " client(s) of this process, a thread each: its local ReentrantLock"
                    + " excludes them (one client id to Redis), Redis excludes other processes";
        }
        if (!pubsub && d.idleMs >= 0 && !Driver.CAN_SET_IDLE) {
            d.note += "; retry " + s.retryKind + " not mapped: " + version + " has no setIdleBetweenTries (it came in 6.4), the spin lock polls every 100 ms";
        }
        warm.destroy();
        Out.log(d.note);
        return d;
    }

    /**
     * The version of the spring-integration-redis jar the classpath loaded: its
     * manifest's Implementation-Version, or "unknown".
     */
    static String libraryVersion() {
        String v = RedisLockRegistry.class.getPackage().getImplementationVersion();
        return v == null || v.isEmpty() ? "unknown" : v;
    }
}
