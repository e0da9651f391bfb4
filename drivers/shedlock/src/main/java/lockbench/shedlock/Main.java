package lockbench.shedlock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;

/**
 * lockbench's lock driver for ShedLock's Redis provider (protocol 1,
 * docs/drivers.md): one JVM, one RedisLockProvider on one spring-data-redis
 * LettuceConnectionFactory, a thread per client. The main thread only reads
 * stdin and hands each request to its client's thread. ShedLock comes from
 * the classpath, at whatever version it holds (init_ok says which):
 *
 * <pre>java -cp 'target/shedlock-driver.jar:target/lib/*' lockbench.shedlock.Main --form shedlock|shedlock-safe</pre>
 */
public final class Main {
    static final List<String> FORMS = List.of("shedlock", "shedlock-safe");

    private final String formName;
    private Driver driver;

    private Main(String formName) {
        this.formName = formName;
    }

    public static void main(String[] args) throws Exception {
        String f = formOf(args);
        Out.init();
        new Main(f).serve();
    }

    /** The --form of args (shedlock without one); an unknown one exits 2. */
    static String formOf(String[] args) {
        String f = "shedlock";
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--form")) {
                f = args[i + 1];
            }
        }
        if (!FORMS.contains(f)) {
            System.err.println("shedlock driver: unknown --form " + f + " (known: " + String.join(", ", FORMS) + ")");
            System.exit(2);
        }
        return f;
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
            // the wall clock as ShedLock reads it (the clock shim's
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
        if (driver == null) {
            Out.malformed(type + " before init", id, client);
            return;
        }
        String key = req.get("key").asText();
        if (!key.startsWith(driver.s.prefix) || key.length() == driver.s.prefix.length()) {
            Out.malformed("key \"" + key + "\" does not start with the prefix \"" + driver.s.prefix + "\" (or names nothing after it)", id, client);
            return;
        }
        Req r = new Req(id, client, type, key, req.path("token").asText(null), req.path("ttl_ms").asDouble(0));
        switch (type) {
            case "acquire" -> driver.acquire(r);
            case "release" -> driver.release(r);
            default -> driver.extend(r);
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
        if (type.equals("extend") && (!req.path("ttl_ms").isNumber() || req.path("ttl_ms").asDouble() <= 0)) {
            bad.append(bad.length() > 0 ? ", " : "").append("ttl_ms");
        }
        return bad.length() == 0 ? null : bad.toString();
    }

    private void init(long id, JsonNode req) {
        if (driver != null) {
            Out.malformed("init sent twice", id, null);
            return;
        }
        ObjectNode err = Out.msg("error");
        err.put("in_reply_to", id);
        err.put("definite", true);
        try {
            driver = Driver.make(formName, Settings.parse(req));
        } catch (Unsupported e) {
            err.put("code", e.code);
            err.put("text", e.getMessage());
            Out.send(err);
            return;
        } catch (RuntimeException | LinkageError e) {
            Out.log("init: " + e);
            e.printStackTrace();
            err.put("code", "io");
            err.put("text", Driver.text(e));
            Out.send(err);
            return;
        }
        ObjectNode ok = Out.msg("init_ok");
        ok.put("in_reply_to", id);
        ok.put("library", "shedlock");
        ok.put("version", shedlockVersion());
        ok.put("language", "java " + System.getProperty("java.version"));
        ok.set("capabilities", driver.capabilities());
        ok.put("text", "shedlock-provider-redis-spring " + shedlockVersion() + (driver.safe ? " safeUpdate(true)" : " (default: DEL unlock, SET XX extend)")
                + " on spring-data-redis " + version("org.springframework.data", "spring-data-redis")
                + ", lettuce-core " + version("io.lettuce", "lettuce-core")
                + "; keys " + driver.keyPrefix + ":" + Driver.ENVIRONMENT + ":NAME; retry " + driver.s.retry);
        Out.send(ok);
    }

    /** The version of the shedlock-provider-redis-spring jar the classpath loaded. */
    static String shedlockVersion() {
        return version("net.javacrumbs.shedlock", "shedlock-provider-redis-spring");
    }

    /**
     * An artifact's version from its jar's pom.properties (ShedLock's jars
     * carry no Implementation-Version), or "unknown".
     */
    static String version(String group, String artifact) {
        String path = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = RedisLockProvider.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (Exception e) {
            return "unknown";
        }
    }
}
