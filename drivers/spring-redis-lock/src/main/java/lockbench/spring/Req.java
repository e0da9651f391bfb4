package lockbench.spring;

/** One request after init: acquire, release or extend, already validated. */
final class Req {
    final long id;
    final int client;
    final String type;
    final String key;
    final String token;
    final double ttlMs;
    /** A release's "interrupt": release on a thread interrupted just before the library's unlock. */
    final boolean interrupt;

    Req(long id, int client, String type, String key, String token, double ttlMs, boolean interrupt) {
        this.id = id;
        this.client = client;
        this.type = type;
        this.key = key;
        this.token = token;
        this.ttlMs = ttlMs;
        this.interrupt = interrupt;
    }
}
