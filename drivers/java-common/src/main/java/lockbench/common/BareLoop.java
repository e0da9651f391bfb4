package lockbench.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bare loop of a Java driver (docs/drivers.md, "The bare loop"),
 * lockbench calibrate --driver's reference, shared by the Java drivers
 * (each pom adds drivers/java-common to its sources): init and the loop
 * request read on stdin, then a thread per client making the driver's own
 * library calls (its {@link Cycle}: acquire, then release, on a lock name of
 * the client's own) and waiting for each, as an application's worker does,
 * with no protocol in the way; one loop_ok line, or an error line and exit
 * status 1.
 */
public final class BareLoop {
    private static final ObjectMapper JSON = new ObjectMapper();

    private BareLoop() {
    }

    /** One cycle of a client: acquire then release key; the acquire's nanoseconds. It throws when the lock was refused or a call failed. */
    public interface Cycle {
        long run(int client, String key) throws Exception;
    }

    /** What a driver gives the loop: its cycle, built from init as the driver builds its lock, and the library as init_ok names it. */
    public record Setup(Cycle cycle, String library, String version) {
    }

    /** Builds a driver's Setup from init; an Exception's message is the error line's text. */
    public interface Maker {
        Setup make(JsonNode init) throws Exception;
    }

    /** A refusal the driver names with a protocol error code (unsupported, malformed). */
    public static final class Refused extends Exception {
        final String code;

        public Refused(String code, String text) {
            super(text);
            this.code = code;
        }
    }

    /**
     * Runs the loop on stdin and stdout and halts the JVM: status 0 with
     * loop_ok, 1 with an error line. System.out goes to stderr first, as in
     * the drivers, so that nothing a library prints reaches the result line.
     */
    public static void main(Maker maker) {
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        ObjectNode reply;
        int status = 0;
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            JsonNode init = JSON.readTree(in.readLine());
            JsonNode loop = JSON.readTree(in.readLine());
            Setup s = maker.make(init);
            reply = run(s, init.path("prefix").asText(), loop);
        } catch (Refused e) {
            reply = error(e.code, e.getMessage());
            status = 1;
        } catch (Throwable e) {
            reply = error("crash", text(e));
            status = 1;
        }
        try {
            out.write(JSON.writeValueAsBytes(reply));
            out.write('\n');
            out.flush();
        } catch (Exception e) {
            status = 1;
        }
        Runtime.getRuntime().halt(status);
    }

    private static ObjectNode error(String code, String text) {
        ObjectNode m = JSON.createObjectNode();
        m.put("type", "error");
        m.put("code", code);
        m.put("definite", true);
        m.put("text", text);
        return m;
    }

    /** The innermost cause's class and message. */
    static String text(Throwable e) {
        while (e.getCause() != null && e.getCause() != e) {
            e = e.getCause();
        }
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    private static ObjectNode run(Setup s, String prefix, JsonNode loop) throws Exception {
        int clients = loop.path("clients").asInt(1);
        AtomicLong cycles = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<List<Long>> took = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            int client = i;
            String key = prefix + "c0:lock:" + i;
            List<Long> mine = new ArrayList<>();
            took.add(mine);
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        long ns = s.cycle().run(client, key);
                        cycles.incrementAndGet();
                        if (measuring.get()) {
                            mine.add(ns);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                }
            }, "bare-client-" + i);
            t.start();
            threads.add(t);
        }
        Thread.sleep(loop.path("warmup_ms").asLong());
        long warmup = cycles.get();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        measuring.set(true);
        Thread.sleep(loop.path("duration_ms").asLong());
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        long elapsed = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        if (failure.get() != null) {
            throw new Exception(text(failure.get()), failure.get());
        }
        List<Long> all = new ArrayList<>();
        took.forEach(all::addAll);
        Collections.sort(all);
        ObjectNode m = JSON.createObjectNode();
        m.put("type", "loop_ok");
        m.put("library", s.library());
        m.put("version", s.version());
        m.put("cycles", cycles.get() - warmup);
        m.put("warmup_cycles", warmup);
        m.put("elapsed_us", elapsed / 1000.0);
        m.put("cpu_us", cpu / 1000.0);
        m.put("acquire_p50_us", all.isEmpty() ? 0 : all.get(all.size() / 2) / 1000.0);
        return m;
    }
}
