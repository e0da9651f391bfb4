package lockbench.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.redisson.api.RedissonClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * lockbench's lock driver for Redisson (protocol 1, docs/drivers.md): one
 * JVM, every client a Redisson thread id on one RedissonClient. The main
 * thread only reads stdin and starts each request's async library call;
 * replies are written from the library's callbacks. Redisson comes from the
 * classpath, at whatever version it holds (init_ok says which):
 *
 * <pre>java -cp 'target/redisson-driver.jar:target/lib/*' lockbench.redisson.Main --form redisson|redisson-unsynced|redisson-lease|redisson-fenced|redisson-semaphore
 * java -cp 'target/redisson-driver.jar:target/redisson-observe.jar:target/lib/*' lockbench.redisson.Main --form redisson-observed</pre>
 */
public final class Main {
    static final List<String> FORMS = List.of("redisson", "redisson-unsynced", "redisson-lease", "redisson-fenced", "redisson-semaphore",
            "redisson-observed", "redisson-reentrant");

    private final String formName;
    private Form form;

    private Main(String formName) {
        this.formName = formName;
    }

    public static void main(String[] args) throws Exception {
        String f = formOf(args);
        Out.init();
        new Main(f).serve();
    }

    /** The --form of args (redisson without one); an unknown one exits 2. */
    static String formOf(String[] args) {
        String f = "redisson";
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--form")) {
                f = args[i + 1];
            }
        }
        if (!FORMS.contains(f)) {
            System.err.println("redisson driver: unknown --form " + f + " (known: " + String.join(", ", FORMS) + ")");
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
            Out.malformed("not JSON: " + Form.text(e), null, null);
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
        Req r = new Req(id, client, type, key, req.path("token").asText(null), req.path("ttl_ms").asDouble(0));
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
            Out.error(r, "crash", false, Form.text(e));
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
            form = Forms.make(formName, Settings.parse(req));
        } catch (Unsupported e) {
            err.put("code", e.code);
            err.put("text", e.getMessage());
            Out.send(err);
            return;
        } catch (Exception e) {
            Out.log("init: " + e);
            err.put("code", "io");
            err.put("text", Form.text(Form.unwrap(e)));
            Out.send(err);
            return;
        }
        ObjectNode ok = Out.msg("init_ok");
        ok.put("in_reply_to", id);
        ok.put("library", "redisson");
        ok.put("version", redissonVersion());
        ok.put("language", "java " + System.getProperty("java.version"));
        ok.set("capabilities", form.capabilities());
        if (form.note != null) {
            ok.put("text", form.note);
        }
        Out.send(ok);
    }

    /**
     * The version of the Redisson jar the classpath loaded: its manifest's
     * Implementation-Version (every release's jar has one, Bundle-Version
     * beside it), or "unknown".
     */
    static String redissonVersion() {
        String v = RedissonClient.class.getPackage().getImplementationVersion();
        return v == null || v.isEmpty() ? "unknown" : v;
    }
}
