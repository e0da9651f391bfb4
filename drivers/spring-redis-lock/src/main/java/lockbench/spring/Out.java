package lockbench.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The driver's stdout (protocol lines only, one JSON object each, never two
 * interleaved) and its stderr log. System.out is pointed at stderr at start,
 * so that nothing a library prints can reach the protocol's stream.
 */
final class Out {
    static final ObjectMapper JSON = new ObjectMapper();
    private static OutputStream stdout;

    private Out() {
    }

    /** Keeps the real stdout for protocol lines and sends System.out to stderr. */
    static void init() {
        stdout = new BufferedOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16);
        System.setOut(new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true, StandardCharsets.UTF_8));
    }

    static ObjectNode msg(String type) {
        ObjectNode m = JSON.createObjectNode();
        m.put("type", type);
        return m;
    }

    /** reply is a message of type answering req (in_reply_to, client). */
    static ObjectNode reply(Req req, String type) {
        ObjectNode m = msg(type);
        m.put("in_reply_to", req.id);
        m.put("client", req.client);
        return m;
    }

    static void send(ObjectNode m) {
        byte[] line;
        try {
            line = JSON.writeValueAsBytes(m);
        } catch (IOException e) {
            log("cannot encode " + m + ": " + e);
            return;
        }
        synchronized (Out.class) {
            try {
                stdout.write(line);
                stdout.write('\n');
                stdout.flush();
            } catch (IOException e) {
                // lockbench went away: nothing to tell
                System.exit(0);
            }
        }
    }

    static void malformed(String text, Long id, Integer client) {
        ObjectNode m = msg("error");
        if (id == null) {
            m.putNull("in_reply_to");
        } else {
            m.put("in_reply_to", id);
        }
        if (client == null) {
            m.putNull("client");
        } else {
            m.put("client", client);
        }
        m.put("code", "malformed");
        m.put("definite", true);
        m.put("text", text);
        send(m);
    }

    static void error(Req req, String code, boolean definite, String text) {
        ObjectNode m = reply(req, "error");
        m.put("code", code);
        m.put("definite", definite);
        m.put("text", text);
        send(m);
    }

    static void log(String text) {
        System.err.println("spring-redis-lock driver: " + text);
    }
}
