//! lockbench's lock driver for rslock, the Rust Redlock (crates.io), speaking
//! lockbench's lock-driver protocol 1 (docs/drivers.md) on stdin/stdout: one
//! JSON object a line, every lockbench client a task on one tokio runtime.
//!
//! `--form rslock`: `LockManager::lock` / `unlock` / `extend`.
//! `--form rslock-using`: `LockManager::using`, the lease held inside the
//! closure until lockbench's release; the library extends it meanwhile.
//!
//! Logs go to stderr; stdout carries protocol lines only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rslock::{Lock, LockError, LockManager};
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use tokio::sync::{oneshot, Notify};

mod bare;

/// The Cargo.toml this binary was built from: its rslock dependency is
/// pinned `=X.Y.Z`, so it names the version compiled in (package
/// driver/install rewrites that line for another version).
const MANIFEST: &str = include_str!("../Cargo.toml");

/// The retry count rslock uses when none is set (its DEFAULT_RETRY_COUNT),
/// and the one the using form sets with the run's delay.
const LIBRARY_RETRY_COUNT: u32 = 3;

/// The most attempts one lock() call of the plain form makes: the driver
/// calls lock() again while the acquire timeout allows, so a call that
/// ends past the deadline ends at most this many attempts past it.
const MAX_ATTEMPTS: u32 = 10;

/// The version a dependency line of MANIFEST pins (`name = { version = "=1.2.3", ... }`).
fn pinned(dep: &str) -> String {
    for line in MANIFEST.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix(dep) else { continue };
        if !rest.trim_start().starts_with('=') {
            continue;
        }
        let Some(at) = rest.find("version") else { continue };
        let mut quoted = rest[at..].split('"');
        if let Some(v) = quoted.nth(1) {
            return v.trim_start_matches('=').to_string();
        }
    }
    "unknown".to_string()
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Form {
    Plain,
    Using,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum RetryKind {
    None,
    Spin,
    Fixed,
    Exp,
    Random,
    Library,
}

/// What init set up.
struct Config {
    form: Form,
    ttl: Duration,
    kind: RetryKind,
    /// rslock's retry delay: it pauses a uniform 0..delay (whole ms) between attempts.
    delay: Duration,
    acquire_timeout: Duration,
}

/// A lease a client holds, under (client, token).
enum Held {
    /// The plain form's Lock, as lock() or extend() returned it.
    Plain(Lock),
    /// The using form's closure, waiting for its release.
    Using(Arc<Slot>),
}

/// Where a using() closure learns that lockbench released its lease.
struct Slot {
    state: Mutex<SlotState>,
    notify: Notify,
}

enum SlotState {
    Held,
    /// lockbench's release request: its id, client, and when it came.
    Releasing(i64, i64, Instant),
    /// using() returned: the lease is gone.
    Closed,
}

struct Driver {
    out: Out,
    cfg: Config,
    /// Acquires with the run's retry settings.
    mgr: LockManager,
    /// One attempt (extend and the plain form's acquire calls set their own
    /// counts on clones of mgr; all clones share its connections).
    once: LockManager,
    leases: Mutex<HashMap<(i64, String), Held>>,
    seq: std::sync::atomic::AtomicU64,
}

/// Where protocol lines go: stdout, or nowhere (the bare loop's driver).
#[derive(Clone, Copy)]
struct Out {
    stdout: bool,
}

/// Writes msg as one line on stdout, from the task that has it: a write to
/// the pipe lockbench reads is one system call that does not wait, where a
/// writer task and tokio's stdout (a thread of its blocking pool) cost a
/// wake-up each. A stdout gone (lockbench ended) ends the process.
fn send(out: &Out, msg: Value) {
    if !out.stdout {
        return;
    }
    let mut line = msg.to_string();
    line.push('\n');
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(line.as_bytes()).and_then(|()| stdout.flush()).is_err() {
        std::process::exit(0);
    }
}

fn micros(since: Instant) -> u64 {
    since.elapsed().as_micros() as u64
}

fn error(id: Value, client: Value, definite: bool, code: &str, text: &str) -> Value {
    json!({"type": "error", "in_reply_to": id, "client": client, "definite": definite, "code": code, "text": text})
}

#[tokio::main]
async fn main() {
    // --bare FORM: the form's bare loop (bare.rs) in place of the protocol
    let bare = std::env::args().any(|a| a == "--bare");
    let flag = if bare { "--bare" } else { "--form" };
    let form = match std::env::args().skip_while(|a| a != flag).nth(1).as_deref() {
        None | Some("rslock") => Form::Plain,
        Some("rslock-using") => Form::Using,
        Some(other) => {
            eprintln!("rslock driver: unknown {flag} {other} (known: rslock, rslock-using)");
            std::process::exit(2);
        }
    };
    if bare {
        bare::run(form).await;
    }
    let out = Out { stdout: true };
    // stdin is read on this thread (block_on's, no worker of the runtime),
    // blocking, as tokio's stdin would on a thread of its blocking pool and
    // a wake-up more a read
    let mut stdin = std::io::stdin().lock();
    let mut driver: Option<Arc<Driver>> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => std::process::exit(0), // stdin closed: exit, leaving calls in flight
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        let req: Value = match serde_json::from_str(&text) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                send(&out, error(Value::Null, Value::Null, true, "malformed", "not a JSON object"));
                continue;
            }
        };
        let id = req.get("id").and_then(Value::as_i64);
        let client = req.get("client").and_then(Value::as_i64).filter(|c| *c >= 0);
        let typ = req.get("type").and_then(Value::as_str).unwrap_or("");
        let Some(id) = id else {
            send(&out, error(Value::Null, client.map_or(Value::Null, Value::from), true, "malformed", &format!("{typ} request without \"id\"")));
            continue;
        };
        if typ == "init" {
            match init(&req, form, out) {
                Ok((d, ok)) => {
                    driver = Some(Arc::new(d));
                    let mut ok = ok;
                    ok["type"] = json!("init_ok");
                    ok["in_reply_to"] = json!(id);
                    send(&out, ok);
                }
                Err((code, text)) => {
                    eprintln!("rslock driver: init refused: {text}");
                    send(&out, error(json!(id), Value::Null, true, code, &text));
                }
            }
            continue;
        }
        if !matches!(typ, "acquire" | "release" | "extend" | "clock") {
            let what = if typ.is_empty() { "message without \"type\"".to_string() } else { format!("unknown request type {typ:?}") };
            send(&out, error(json!(id), client.map_or(Value::Null, Value::from), true, "malformed", &what));
            continue;
        }
        let Some(client) = client else {
            send(&out, error(json!(id), Value::Null, true, "malformed", &format!("{typ} request without \"client\"")));
            continue;
        };
        if typ == "clock" {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0);
            send(&out, json!({"type": "clock_ok", "in_reply_to": id, "client": client, "now_ms": now}));
            continue;
        }
        let key = req.get("key").and_then(Value::as_str).unwrap_or("").to_string();
        let token = req.get("token").and_then(Value::as_str).unwrap_or("").to_string();
        let missing = if key.is_empty() {
            Some("key")
        } else if typ != "acquire" && token.is_empty() {
            Some("token")
        } else {
            None
        };
        if let Some(field) = missing {
            send(&out, error(json!(id), json!(client), true, "malformed", &format!("{typ} request without \"{field}\"")));
            continue;
        }
        let Some(d) = driver.clone() else {
            send(&out, error(json!(id), json!(client), true, "malformed", &format!("{typ} before init")));
            continue;
        };
        match typ {
            "acquire" => {
                tokio::spawn(async move {
                    match d.cfg.form {
                        Form::Plain => d.acquire(id, client, key).await,
                        Form::Using => d.acquire_using(id, client, key).await,
                    }
                });
            }
            "release" => {
                tokio::spawn(async move { d.release(id, client, token).await });
            }
            _ => {
                let ttl = req.get("ttl_ms").and_then(Value::as_f64).filter(|t| *t > 0.0);
                let Some(ttl) = ttl else {
                    send(&out, error(json!(id), json!(client), true, "malformed", "extend request without a \"ttl_ms\" > 0"));
                    continue;
                };
                tokio::spawn(async move { d.extend(id, client, token, Duration::from_secs_f64(ttl / 1000.0)).await });
            }
        }
    }
}

/// init: the Config and LockManager, and init_ok's fields; or a refusal
/// (code, text).
fn init(req: &Value, form: Form, out: Out) -> Result<(Driver, Value), (&'static str, String)> {
    let malformed = |what: &str| ("malformed", format!("init: {what}"));
    let unsupported = |what: String| ("unsupported", what);
    let redis = req.get("redis").filter(|r| r.is_object()).ok_or_else(|| malformed("no \"redis\""))?;
    let lock = req.get("lock").filter(|r| r.is_object()).ok_or_else(|| malformed("no \"lock\""))?;
    let mode = redis.get("mode").and_then(Value::as_str).unwrap_or("");
    if mode != "single" && mode != "masters" {
        return Err(unsupported(format!("mode {mode:?}: rslock's LockManager takes independent servers (single, masters)")));
    }
    if redis.get("tls").is_some_and(|t| !t.is_null()) {
        return Err(unsupported("TLS: not configured in this driver".to_string()));
    }
    let addrs: Vec<&str> = redis.get("addrs").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    if addrs.is_empty() || (mode == "single" && addrs.len() != 1) {
        return Err(malformed("\"redis.addrs\" must name one server (single) or the masters"));
    }
    let username = redis.get("username").and_then(Value::as_str).unwrap_or("");
    let password = match redis.get("password") {
        None | Some(Value::Null) => None,
        Some(p) => Some(read_password(p).map_err(|e| malformed(&e))?),
    };
    let uris: Vec<String> = addrs.iter().map(|a| uri(a, username, password.as_deref())).collect();

    let limit = lock.get("limit").and_then(Value::as_i64).unwrap_or(1);
    if limit > 1 {
        return Err(unsupported(format!("limit {limit}: rslock is a lock, not a semaphore")));
    }
    let renew = lock.get("renew").and_then(Value::as_bool).unwrap_or(false);
    if renew && form == Form::Plain {
        return Err(unsupported("renew: rslock's lock() does not renew; the renewing form is rslock-using".to_string()));
    }
    if !renew && form == Form::Using {
        eprintln!("rslock driver: renew:false asked of rslock-using: served as using(), which extends the lease while held");
    }
    let ttl_ms = lock.get("ttl_ms").and_then(Value::as_f64).unwrap_or(0.0);
    if ttl_ms < 1.0 {
        return Err(unsupported(format!("ttl_ms {ttl_ms}: rslock has no default lease time; give one of at least 1 ms")));
    }
    let retry = lock.get("retry").cloned().unwrap_or(Value::Null);
    let kind = match retry.get("kind").and_then(Value::as_str).unwrap_or("library") {
        "none" => RetryKind::None,
        "spin" => RetryKind::Spin,
        "fixed" => RetryKind::Fixed,
        "exp" => RetryKind::Exp,
        "random" => RetryKind::Random,
        "library" => RetryKind::Library,
        other => return Err(malformed(&format!("retry kind {other:?}"))),
    };
    if kind == RetryKind::None && form == Form::Using {
        return Err(unsupported("retry none: rslock's using() acquires with acquire_no_guard, which tries until it holds the lock; it has no single try".to_string()));
    }
    let min_ms = retry.get("min_ms").and_then(Value::as_f64).unwrap_or(0.0).max(0.0);
    let max_ms = retry.get("max_ms").and_then(Value::as_f64).unwrap_or(0.0).max(min_ms);
    // rslock pauses a uniform whole number of ms in 0..delay (0..delay-1):
    // a delay of 2m+1 ms averages m. A delay of 0 would panic (an empty
    // range), so spin is 1 ms: every pause 0.
    let mean_ms = match kind {
        RetryKind::Fixed => min_ms,
        RetryKind::Exp | RetryKind::Random => (min_ms + max_ms) / 2.0,
        _ => 0.0,
    };
    let delay = Duration::from_millis((2.0 * mean_ms).round() as u64 + 1);
    let timeout_ms = lock.get("acquire_timeout_ms").and_then(Value::as_f64).unwrap_or(10_000.0).max(0.0);
    let cfg = Config {
        form,
        ttl: Duration::from_secs_f64(ttl_ms / 1000.0),
        kind,
        delay,
        acquire_timeout: Duration::from_secs_f64(timeout_ms / 1000.0),
    };

    let mut mgr = LockManager::new(uris);
    let mut once = mgr.clone();
    match (kind, form) {
        (RetryKind::Library, _) => once = mgr.clone(),
        (_, Form::Using) => mgr.set_retry(LIBRARY_RETRY_COUNT, delay),
        _ => once.set_retry(1, delay),
    }
    let version = pinned("rslock");
    eprintln!(
        "rslock driver: rslock {version}, form {form:?}, mode {mode} ({} servers), ttl {:?}, retry {kind:?} delay {:?}, acquire timeout {:?}",
        addrs.len(),
        cfg.ttl,
        cfg.delay,
        cfg.acquire_timeout
    );
    let ok = json!({
        "library": "rslock",
        "version": version,
        "language": format!("rust (tokio {})", pinned("tokio")),
        "capabilities": {
            "extend": form == Form::Plain,
            "renewal": form == Form::Using,
            "fencing": false,
            "semaphore": false,
            "blocking": kind != RetryKind::None,
            "modes": ["single", "masters"],
        },
    });
    let d = Driver { out, cfg, mgr, once, leases: Mutex::new(HashMap::new()), seq: Default::default() };
    Ok((d, ok))
}

fn read_password(p: &Value) -> Result<String, String> {
    if let Some(name) = p.get("env").and_then(Value::as_str) {
        return std::env::var(name).map_err(|_| format!("password variable {name} is not set"));
    }
    if let Some(path) = p.get("file").and_then(Value::as_str) {
        let s = std::fs::read_to_string(path).map_err(|e| format!("password file {path}: {e}"))?;
        return Ok(s.strip_suffix('\n').unwrap_or(&s).to_string());
    }
    Err("\"redis.password\" names neither env nor file".to_string())
}

/// The redis:// URI of addr, user and password percent-encoded.
fn uri(addr: &str, username: &str, password: Option<&str>) -> String {
    let enc = |s: &str| -> String {
        s.bytes()
            .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
            .collect()
    };
    match password {
        Some(pw) => format!("redis://{}:{}@{addr}/", enc(username), enc(pw)),
        None if !username.is_empty() => format!("redis://{}@{addr}/", enc(username)),
        None => format!("redis://{addr}/"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Driver {
    fn reply(&self, typ: &str, id: i64, client: i64, extra: Value) {
        let mut msg = json!({"type": typ, "in_reply_to": id, "client": client});
        if let (Value::Object(m), Value::Object(e)) = (&mut msg, extra) {
            m.extend(e);
        }
        send(&self.out, msg);
    }

    fn fail(&self, id: i64, client: i64, definite: bool, code: &str, text: &str) {
        send(&self.out, error(json!(id), json!(client), definite, code, text));
    }

    /// A LockError of lock() or extend() as an error reply: definite only
    /// when nothing was sent (the TTL did not fit, the id could not be made).
    fn lock_error(&self, id: i64, client: i64, e: &LockError) {
        match e {
            LockError::TtlTooLarge => self.fail(id, client, true, "ttl_too_large", &e.to_string()),
            LockError::Io(_) => self.fail(id, client, true, "io", &e.to_string()),
            // TtlExceeded: the attempt outlasted the TTL; its SETs may stand
            // on a quorum (rslock does not unlock then) until they expire.
            LockError::TtlExceeded => self.fail(id, client, false, "ttl_exceeded", &e.to_string()),
            _ => self.fail(id, client, false, "redis", &e.to_string()),
        }
    }

    /// The plain form: lock() with the run's retry (delay, and a count of
    /// at most MAX_ATTEMPTS), called again while time is left before the
    /// acquire timeout (as acquire_no_guard calls it again, without a
    /// deadline); a call is never cut short.
    async fn acquire(&self, id: i64, client: i64, key: String) {
        let start = Instant::now();
        let deadline = start + self.cfg.acquire_timeout;
        loop {
            let mgr = self.acquirer(deadline.saturating_duration_since(Instant::now()));
            let call = Instant::now();
            match mgr.lock(key.as_bytes(), self.cfg.ttl).await {
                Ok(lock) => {
                    let took = micros(call);
                    let token = hex(&lock.val);
                    let validity = lock.validity_time;
                    self.leases.lock().unwrap().insert((client, token.clone()), Held::Plain(lock));
                    return self.reply("acquire_ok", id, client, json!({"token": token, "validity_ms": validity, "took_us": took}));
                }
                Err(LockError::Unavailable) => {
                    let once = matches!(self.cfg.kind, RetryKind::None | RetryKind::Library);
                    if once || Instant::now() >= deadline {
                        let reason = if once { "busy" } else { "timeout" };
                        return self.reply("not_acquired", id, client, json!({"reason": reason, "took_us": micros(start)}));
                    }
                }
                Err(e) => return self.lock_error(id, client, &e),
            }
        }
    }

    /// The LockManager of the plain form's next lock() call, `left` before
    /// the acquire timeout: the run's retry count on a clone of mgr.
    fn acquirer(&self, left: Duration) -> LockManager {
        let mut mgr = self.mgr.clone();
        match self.cfg.kind {
            RetryKind::None => mgr.set_retry(1, self.cfg.delay),
            RetryKind::Library => {}
            _ => mgr.set_retry(self.attempts(left), self.cfg.delay),
        }
        mgr
    }

    /// The bare loop's cycle (bare.rs): the library calls of an acquire
    /// and its release, with no protocol: the plain form's first lock()
    /// call then unlock() as release makes it; the using form's using()
    /// with a closure that returns at once. The acquire's time (to the
    /// closure's start for using()), or what the library said when it
    /// refused.
    async fn cycle(&self, key: &str) -> Result<Duration, String> {
        let start = Instant::now();
        match self.cfg.form {
            Form::Plain => {
                let lock = self.acquirer(self.cfg.acquire_timeout).lock(key.as_bytes(), self.cfg.ttl).await.map_err(|e| e.to_string())?;
                let took = start.elapsed();
                self.once.unlock(&lock).await;
                Ok(took)
            }
            Form::Using => self.mgr.using(key.as_bytes(), self.cfg.ttl, async move || start.elapsed()).await.map_err(|e| e.to_string()),
        }
    }

    /// The retry count of one lock() call: one attempt more than the mean
    /// pauses (each a uniform 0..delay ms) that fit in `left`, at most
    /// MAX_ATTEMPTS, so that the deadline is looked at again that often.
    fn attempts(&self, left: Duration) -> u32 {
        let mean_ms = (self.cfg.delay.as_millis() as f64 - 1.0) / 2.0;
        if mean_ms < 0.5 {
            return 1; // spin: no pause between lock() calls either
        }
        ((left.as_secs_f64() * 1000.0 / mean_ms).floor() as u32).saturating_add(1).min(MAX_ATTEMPTS)
    }

    async fn release(&self, id: i64, client: i64, token: String) {
        let held = self.leases.lock().unwrap().remove(&(client, token));
        match held {
            None => self.reply("lease_gone", id, client, json!({})),
            Some(Held::Plain(lock)) => {
                let call = Instant::now();
                // Best effort: rslock's unlock returns nothing, so a lease
                // that had expired or an unreachable server still reads as done.
                self.once.unlock(&lock).await;
                self.reply("release_ok", id, client, json!({"took_us": micros(call)}));
            }
            Some(Held::Using(slot)) => {
                let mut state = slot.state.lock().unwrap();
                match *state {
                    SlotState::Held => {
                        *state = SlotState::Releasing(id, client, Instant::now());
                        slot.notify.notify_one();
                    }
                    _ => {
                        drop(state);
                        self.reply("lease_gone", id, client, json!({}));
                    }
                }
            }
        }
    }

    async fn extend(&self, id: i64, client: i64, token: String, ttl: Duration) {
        if self.cfg.form == Form::Using {
            return self.fail(id, client, true, "unsupported", "rslock-using: using() extends by itself; no manual extend");
        }
        let held = self.leases.lock().unwrap().remove(&(client, token.clone()));
        let Some(Held::Plain(lock)) = held else {
            return self.reply("lease_gone", id, client, json!({}));
        };
        let call = Instant::now();
        match self.once.extend(&lock, ttl).await {
            Ok(new) => {
                let validity = new.validity_time;
                self.leases.lock().unwrap().insert((client, token), Held::Plain(new));
                self.reply("extend_ok", id, client, json!({"validity_ms": validity, "took_us": micros(call)}));
            }
            // No quorum extended it; rslock then unlocks it everywhere.
            Err(LockError::Unavailable) => self.reply("lease_gone", id, client, json!({"took_us": micros(call)})),
            Err(e) => {
                self.leases.lock().unwrap().insert((client, token), Held::Plain(lock));
                self.lock_error(id, client, &e);
            }
        }
    }

    /// The using form: using() runs a closure that says it started (the
    /// lock is held: acquire_ok) and waits for lockbench's release; the
    /// acquire is cut at the acquire timeout by dropping using() (its
    /// acquire_no_guard has no deadline).
    async fn acquire_using(self: Arc<Self>, id: i64, client: i64, key: String) {
        let start = Instant::now();
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let token = format!("{client}.{n}");
        let slot = Arc::new(Slot { state: Mutex::new(SlotState::Held), notify: Notify::new() });
        let (started_tx, mut started_rx) = oneshot::channel::<Instant>();
        let routine_slot = slot.clone();
        let mgr = self.mgr.clone();
        let ttl = self.cfg.ttl;
        let using = async move {
            mgr.using(key.as_bytes(), ttl, async move || {
                let _ = started_tx.send(Instant::now());
                loop {
                    routine_slot.notify.notified().await;
                    if let SlotState::Releasing(..) = *routine_slot.state.lock().unwrap() {
                        return;
                    }
                }
            })
            .await
        };
        tokio::pin!(using);
        let deadline = tokio::time::sleep(self.cfg.acquire_timeout);
        tokio::pin!(deadline);
        let result = tokio::select! {
            biased;
            Ok(at) = &mut started_rx => {
                self.leases.lock().unwrap().insert((client, token.clone()), Held::Using(slot.clone()));
                self.reply("acquire_ok", id, client, json!({"token": token, "took_us": (at - start).as_micros() as u64}));
                using.await
            }
            result = &mut using => {
                // using() ended before its closure ran: acquire_no_guard failed.
                return match result {
                    Err(e) => self.lock_error(id, client, &e),
                    Ok(()) => self.fail(id, client, false, "internal", "using() returned without running its closure"),
                };
            }
            _ = &mut deadline => {
                return self.reply("not_acquired", id, client, json!({"reason": "timeout", "took_us": micros(start)}));
            }
        };
        let pending = std::mem::replace(&mut *slot.state.lock().unwrap(), SlotState::Closed);
        self.leases.lock().unwrap().remove(&(client, token.clone()));
        match (pending, result) {
            (SlotState::Releasing(rid, rclient, at), Ok(())) => self.reply("release_ok", rid, rclient, json!({"took_us": micros(at)})),
            (SlotState::Releasing(rid, rclient, _), Err(e)) => {
                eprintln!("rslock driver: client {client} lease {token}: extension failed while its release waited: {e}");
                self.reply("lease_gone", rid, rclient, json!({}));
            }
            (_, Err(e)) => send(&self.out, json!({"type": "lease_lost", "client": client, "token": token, "text": format!("using() extension failed: {e}")})),
            (_, Ok(())) => eprintln!("rslock driver: client {client} lease {token}: using() returned without a release"),
        }
    }
}
