package lockbench.shedlock;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What init asked: the topology, the prefix and the lock's options (docs/drivers.md). */
final class Settings {
    static final List<String> MODES = List.of("single", "sentinel", "cluster");

    String mode;
    List<String> addrs = new ArrayList<>();
    String masterName;
    String username;
    String password;
    String prefix;
    int clients;
    /** The lease time (lockAtMostFor); 0: none given (ShedLock has no default). */
    long ttlMs;
    /** The driver's retry loop between lock() calls (see Retry). */
    Retry retry;
    /** The longest blocking acquire; 0 or less: no limit. */
    long acquireTimeoutMs;
    int limit;
    boolean renew;

    static Settings parse(JsonNode req) throws Unsupported {
        Settings s = new Settings();
        if (!req.path("protocol").isInt() || req.path("protocol").asInt() != 1) {
            throw Unsupported.unsupported("protocol " + req.path("protocol") + " not supported (this driver speaks 1)");
        }
        JsonNode rc = req.path("redis");
        if (!rc.isObject()) {
            throw Unsupported.malformed("init: redis missing");
        }
        s.mode = rc.path("mode").asText("single");
        if (!MODES.contains(s.mode)) {
            throw Unsupported.unsupported("mode \"" + s.mode + "\" not supported by the ShedLock driver (modes: " + String.join(", ", MODES)
                    + "; ShedLock's Redis provider locks on one Redis, it has no Redlock)");
        }
        if (!rc.path("addrs").isArray() || rc.path("addrs").isEmpty()) {
            throw Unsupported.malformed("init: redis.addrs missing");
        }
        for (JsonNode a : rc.path("addrs")) {
            if (!a.isTextual() || a.asText().lastIndexOf(':') < 1) {
                throw Unsupported.malformed("bad address " + a + " (want host:port)");
            }
            s.addrs.add(a.asText());
        }
        s.masterName = rc.path("master_name").asText("");
        if (s.mode.equals("sentinel") && s.masterName.isEmpty()) {
            throw Unsupported.malformed("init: sentinel mode needs redis.master_name");
        }
        s.username = rc.path("username").asText("");
        s.password = password(rc.get("password"));
        if (rc.hasNonNull("tls")) {
            throw Unsupported.unsupported("TLS is not supported by the ShedLock driver (lockbench hands PEM files; the driver builds no SSL context from them)");
        }
        s.prefix = req.path("prefix").asText("");
        if (s.prefix.isEmpty()) {
            throw Unsupported.malformed("init: prefix missing");
        }
        s.clients = Math.max(1, req.path("clients").asInt(1));
        JsonNode lk = req.path("lock");
        if (!lk.isObject()) {
            throw Unsupported.malformed("init: lock missing");
        }
        s.ttlMs = Math.max(0, Math.round(lk.path("ttl_ms").asDouble(0)));
        if (lk.path("ttl_ms").asDouble(0) > 0 && s.ttlMs == 0) {
            s.ttlMs = 1;
        }
        s.retry = Retry.parse(lk.path("retry"));
        s.acquireTimeoutMs = Math.round(lk.path("acquire_timeout_ms").asDouble(0));
        s.limit = Math.max(1, lk.path("limit").asInt(1));
        s.renew = lk.path("renew").asBoolean(false);
        return s;
    }

    private static String password(JsonNode p) throws Unsupported {
        if (p == null || p.isNull()) {
            return null;
        }
        if (p.hasNonNull("env")) {
            String v = System.getenv(p.get("env").asText());
            return v == null || v.isEmpty() ? null : v;
        }
        if (p.hasNonNull("file")) {
            try {
                String v = Files.readString(Path.of(p.get("file").asText()), StandardCharsets.UTF_8);
                return v.endsWith("\n") ? v.substring(0, v.length() - 1) : v;
            } catch (IOException e) {
                throw Unsupported.malformed("init: password file: " + e);
            }
        }
        throw Unsupported.malformed("init: password must be {\"env\":…} or {\"file\":…}");
    }
}
