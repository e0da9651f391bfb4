package lockbench.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The driver's bare loop (docs/drivers.md, "The bare loop"), lockbench
 * calibrate --driver's reference: init read and the form built as the
 * driver builds it, then a thread per client making the form's own calls
 * (LockForm.cycle: lock, then unlock, as the client's Redisson thread id)
 * and waiting for each, one lock name each, with no protocol in the way;
 * one loop_ok line. Lock forms only: redisson-semaphore answers
 * unsupported.
 *
 * <pre>java -cp 'target/redisson-driver.jar:target/lib/*' lockbench.redisson.Bare --form redisson</pre>
 */
public final class Bare {
    private Bare() {
    }

    public static void main(String[] args) throws Exception {
        String f = Main.formOf(args);
        Out.init();
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            JsonNode init = Out.JSON.readTree(in.readLine());
            JsonNode loop = Out.JSON.readTree(in.readLine());
            Form form = Forms.make(f, Settings.parse(init));
            if (!(form instanceof LockForm)) {
                throw Unsupported.unsupported(f + " has no bare loop (the lock forms have)");
            }
            Out.send(run((LockForm) form, init.path("prefix").asText(), loop));
        } catch (Unsupported e) {
            Out.send(error(e.code, e.getMessage()));
            Runtime.getRuntime().halt(1);
        } catch (Exception e) {
            Out.send(error("crash", Form.text(Form.unwrap(e))));
            Runtime.getRuntime().halt(1);
        }
        Runtime.getRuntime().halt(0);
    }

    private static ObjectNode error(String code, String text) {
        ObjectNode m = Out.msg("error");
        m.put("code", code);
        m.put("definite", true);
        m.put("text", text);
        return m;
    }

    private static ObjectNode run(LockForm form, String prefix, JsonNode loop) throws Exception {
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
            // a thread per client waits for each call, as an application's
            // worker calls lock() and unlock(): the calls leave this thread
            // for Redisson's event loop and their answers come back to it
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        long ns = form.cycle(client, key).toCompletableFuture().get();
                        cycles.incrementAndGet();
                        if (measuring.get()) {
                            mine.add(ns);
                        }
                    }
                } catch (Exception e) {
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
            throw new Exception(Form.text(Form.unwrap(failure.get())));
        }
        List<Long> all = new ArrayList<>();
        took.forEach(all::addAll);
        Collections.sort(all);
        ObjectNode m = Out.msg("loop_ok");
        m.put("library", "redisson");
        m.put("version", Main.redissonVersion());
        m.put("cycles", cycles.get() - warmup);
        m.put("warmup_cycles", warmup);
        m.put("elapsed_us", elapsed / 1000.0);
        m.put("cpu_us", cpu / 1000.0);
        m.put("acquire_p50_us", all.isEmpty() ? 0 : all.get(all.size() / 2) / 1000.0);
        return m;
    }
}
