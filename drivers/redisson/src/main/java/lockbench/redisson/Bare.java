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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The driver's bare loop (docs/drivers.md, "The bare loop"), lockbench
 * calibrate --driver's reference: init read and the form built as the
 * driver builds it, then each client a chain of the form's own async calls
 * (LockForm.cycle: lock, then unlock, as the client's Redisson thread id),
 * one lock name each, with no protocol in the way; one loop_ok line. Lock
 * forms only: redisson-semaphore answers unsupported.
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

    /** The loop's state: the clients' cycles, their acquire times in the measured phase, the first failure. */
    private static final class State {
        final AtomicLong cycles = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean measuring;
        volatile boolean stop;
        final CountDownLatch done;
        /** Each client's acquire times (ns): a client's calls follow one another, its list is its own. */
        final List<List<Long>> took = new ArrayList<>();

        State(int clients) {
            done = new CountDownLatch(clients);
            for (int i = 0; i < clients; i++) {
                took.add(new ArrayList<>());
            }
        }
    }

    private static ObjectNode run(LockForm form, String prefix, JsonNode loop) throws Exception {
        int clients = loop.path("clients").asInt(1);
        State st = new State(clients);
        for (int i = 0; i < clients; i++) {
            next(form, st, i, prefix + "c0:lock:" + i);
        }
        Thread.sleep(loop.path("warmup_ms").asLong());
        long warmup = st.cycles.get();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        st.measuring = true;
        Thread.sleep(loop.path("duration_ms").asLong());
        st.stop = true;
        st.done.await();
        long elapsed = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        if (st.failure.get() != null) {
            throw new Exception(Form.text(Form.unwrap(st.failure.get())));
        }
        List<Long> all = new ArrayList<>();
        st.took.forEach(all::addAll);
        Collections.sort(all);
        ObjectNode m = Out.msg("loop_ok");
        m.put("library", "redisson");
        m.put("version", Main.redissonVersion());
        m.put("cycles", st.cycles.get() - warmup);
        m.put("warmup_cycles", warmup);
        m.put("elapsed_us", elapsed / 1000.0);
        m.put("cpu_us", cpu / 1000.0);
        m.put("acquire_p50_us", all.isEmpty() ? 0 : all.get(all.size() / 2) / 1000.0);
        return m;
    }

    /** Client i's next cycle, from the last one's callback, until the loop stops. */
    private static void next(LockForm form, State st, int i, String key) {
        if (st.stop) {
            st.done.countDown();
            return;
        }
        form.cycle(i, key).whenComplete((took, err) -> {
            if (err != null) {
                st.failure.compareAndSet(null, err);
                st.stop = true;
                st.done.countDown();
                return;
            }
            st.cycles.incrementAndGet();
            if (st.measuring) {
                st.took.get(i).add(took);
            }
            next(form, st, i, key);
        });
    }
}
