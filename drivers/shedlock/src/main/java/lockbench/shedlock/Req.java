package lockbench.shedlock;

/** One request after init: acquire, release or extend, already validated. */
record Req(long id, int client, String type, String key, String token, double ttlMs) {
}
