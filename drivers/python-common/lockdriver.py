"""The Python side of lockbench's lock-driver protocol 1, shared by the Python drivers.

drivers/redis-py (redis-py's redis.lock.Lock, run by Debian's python3 and by
drivers/redis-py-8's virtual environment), drivers/python-redis-lock and
drivers/pottery-redlock import it (each puts this folder on sys.path): the
stdin/stdout framing, request validation, init's common fields, redis-py's
connection options, and which redis-py errors are definite. A driver gives
serve() its init function and a Client subclass with acquire, release and
extend; each lockbench client gets a worker thread of its own, so a blocking
library call never stops the reader. No dependencies beyond the standard
library (and redis-py for is_definite, imported lazily).
"""

import json
import os
import queue
import sys
import threading
import time

PROTOCOL = 1
NAME = "python"  # the driver's name in log lines; serve() sets it

_out_lock = threading.Lock()


def send(msg):
    """Writes one message as one line, whole, under the output lock."""
    line = json.dumps(msg, separators=(",", ":")) + "\n"
    with _out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def log(text):
    try:
        sys.stderr.write("%s driver: %s\n" % (NAME, text))
        sys.stderr.flush()
    except Exception:
        pass


class Malformed(Exception):
    pass


class Unsupported(Exception):
    pass


def err_text(exc):
    return "%s: %s" % (type(exc).__name__, str(exc).replace("\n", " ").strip())


def now_us():
    return int(time.monotonic() * 1e6)


def split_addr(a):
    if not isinstance(a, str) or ":" not in a:
        raise Malformed("bad address %r (want host:port)" % (a,))
    host, _, port = a.rpartition(":")
    return host.strip("[]"), int(port)


def read_password(p):
    if p is None:
        return None
    if not isinstance(p, dict):
        raise Malformed("init: password must be {\"env\":…} or {\"file\":…}")
    if "env" in p:
        return os.environ.get(p["env"], "") or None
    if "file" in p:
        with open(p["file"], encoding="utf-8") as f:
            v = f.read()
        return v[:-1] if v.endswith("\n") else v
    raise Malformed("init: password must be {\"env\":…} or {\"file\":…}")


RETRY_KINDS = ("none", "spin", "fixed", "exp", "random", "library")


class Init:
    """init's fields, checked; each driver maps the lock's options to its library.

    mode, addrs [(host, port)], master_name, username, password, tls, prefix,
    clients, ttl_ms (float, 0 = the library's default), renew, retry_kind,
    retry_min_ms, retry_max_ms, acquire_timeout_ms (None: wait forever).
    """

    def __init__(self, req, modes, semaphore=False):
        if req.get("protocol") != PROTOCOL:
            raise Unsupported("protocol %r not supported (this driver speaks %d)" % (req.get("protocol"), PROTOCOL))
        rc = req.get("redis")
        if not isinstance(rc, dict):
            raise Malformed("init: redis missing")
        self.mode = rc.get("mode", "single")
        if self.mode not in modes:
            raise Unsupported("mode %r not supported by the %s driver (modes: %s)" % (self.mode, NAME, ", ".join(modes)))
        addrs = rc.get("addrs")
        if not isinstance(addrs, list) or not addrs:
            raise Malformed("init: redis.addrs missing")
        self.addrs = [split_addr(a) for a in addrs]
        if self.mode == "single":
            self.addrs = self.addrs[:1]
        self.master_name = rc.get("master_name") or ""
        if self.mode == "sentinel" and not self.master_name:
            raise Malformed("init: sentinel mode needs redis.master_name")
        self.username = rc.get("username") or None
        self.password = read_password(rc.get("password"))
        self.tls = rc.get("tls") or None
        self.prefix = req.get("prefix")
        if not isinstance(self.prefix, str) or not self.prefix:
            raise Malformed("init: prefix missing")
        self.clients = int(req.get("clients") or 1)
        lk = req.get("lock")
        if not isinstance(lk, dict):
            raise Malformed("init: lock missing")
        self.limit = int(lk.get("limit", 1) or 1)
        if self.limit != 1 and not semaphore:
            raise Unsupported("%s is a mutex: limit %r (a semaphore) is not supported" % (NAME, self.limit))
        self.renew = bool(lk.get("renew"))
        self.ttl_ms = float(lk.get("ttl_ms", 0) or 0)
        retry = lk.get("retry") or {"kind": "library"}
        self.retry_kind = retry.get("kind", "library")
        if self.retry_kind not in RETRY_KINDS:
            raise Malformed("init: unknown retry kind %r" % (self.retry_kind,))
        self.retry_min_ms = float(retry.get("min_ms", 0) or 0)
        self.retry_max_ms = float(retry.get("max_ms", self.retry_min_ms) or self.retry_min_ms)
        at = lk.get("acquire_timeout_ms")
        self.acquire_timeout_ms = float(at) if at is not None and float(at) > 0 else None

    def connection_kwargs(self):
        """redis-py's keyword arguments for a connection to a Redis node."""
        kw = {}
        if self.username:
            kw["username"] = self.username
        if self.password is not None:
            kw["password"] = self.password
        kw.update(self.tls_kwargs())
        return kw

    def tls_kwargs(self):
        t = self.tls
        if not t:
            return {}
        kw = {"ssl": True}
        if t.get("ca_file"):
            kw["ssl_ca_certs"] = t["ca_file"]
        if t.get("cert_file"):
            kw["ssl_certfile"] = t["cert_file"]
        if t.get("key_file"):
            kw["ssl_keyfile"] = t["key_file"]
        if t.get("insecure_skip_verify"):
            kw["ssl_cert_reqs"] = "none"
            kw["ssl_check_hostname"] = False
        elif t.get("server_name"):
            log("tls.server_name %r ignored: redis-py checks the certificate against the address it dials" % t["server_name"])
        return kw


def retries_of(client):
    """How many times the redis-py client resends a command after a
    connection error or timeout: 0 in redis-py 4.x (Retry(NoBackoff(), 0)),
    3 by default from 6.0 on (ExponentialWithJitterBackoff)."""
    try:
        retry = client.connection_pool.connection_kwargs.get("retry")
    except AttributeError:
        return 0
    if retry is None:
        return 0
    get = getattr(retry, "get_retries", None)
    return int(get() if get else getattr(retry, "_retries", 0))


def is_definite(exc, mode, retries=0):
    """True only where redis-py certainly sent nothing that could have taken
    effect. retries: retries_of the client (a client that resends after a
    connection error may have sent the command before it failed to reconnect)."""
    from redis import exceptions as rexc
    if isinstance(exc, rexc.ResponseError):
        # the server answered with an error: the command (a SET or a script
        # refused as a whole, e.g. READONLY) did not run
        return mode != "cluster"
    if mode == "cluster":
        # RedisCluster retries a command on ConnectionError/TimeoutError after
        # re-reading the slots, so a failure to connect may follow a send
        # that did take effect
        return False
    if isinstance(exc, getattr(rexc, "MasterNotFoundError", ())):
        return True
    if retries == 0 and isinstance(exc, (rexc.ConnectionError, rexc.TimeoutError)):
        text = str(exc)
        # Connection.connect() failed: no command was written on this call,
        # and a client without retries does not resend after a send
        if "connecting to" in text or "Timeout connecting" in text:
            return True
    return False


class Client:
    """One lockbench client: a worker thread, its leases, reply helpers.

    A driver subclasses it with acquire(req), release(req) and extend(req);
    leases maps (key, token) to the library's lock object.
    """

    def __init__(self, cfg, idx):
        self.cfg = cfg
        self.idx = idx
        self.q = queue.SimpleQueue()
        self.leases = {}
        t = threading.Thread(target=self._run, name="client-%d" % idx, daemon=True)
        t.start()

    def _run(self):
        while True:
            req = self.q.get()
            try:
                getattr(self, req["type"])(req)
            except Exception as e:  # a driver bug: say so, keep serving
                log("client %d: %s" % (self.idx, err_text(e)))
                self.reply(req, "error", code="crash", definite=False, text=err_text(e))

    def held(self, req, pop=False):
        """The library's lock of the lease req names (removed from this
        client's leases when pop), or None, with lease_gone answered, when
        this client holds no such lease: the libraries cannot act on
        another's token, so nothing is sent to Redis."""
        lease = (req["key"], req["token"])
        lock = self.leases.pop(lease, None) if pop else self.leases.get(lease)
        if lock is None:
            self.reply(req, "lease_gone")
        return lock

    def refused(self, req, took_us):
        """Answers an acquire the library did not grant: timed out when it
        blocked (cfg.blocking, which each driver's init settings say), else
        busy."""
        self.reply(req, "not_acquired", reason="timeout" if self.cfg.blocking else "busy", took_us=took_us)

    def reply(self, req, typ, **fields):
        m = {"type": typ, "in_reply_to": req["id"], "client": self.idx}
        m.update(fields)
        send(m)

    def notice(self, typ, token, **fields):
        """An unasked message (lease_lost, renewed) about this client's lease token."""
        m = {"type": typ, "client": self.idx, "token": token}
        m.update(fields)
        send(m)

    def error(self, req, exc, definite):
        from redis import exceptions as rexc
        code = "timeout" if isinstance(exc, rexc.TimeoutError) else (
            "redis" if isinstance(exc, rexc.ResponseError) else "io")
        self.reply(req, "error", code=code, definite=definite, text=err_text(exc))


REQUIRED = {
    "acquire": (("key", str),),
    "release": (("key", str), ("token", str)),
    "extend": (("key", str), ("token", str), ("ttl_ms", (int, float))),
}


def malformed(text, rid=None, client=None):
    send({"type": "error", "in_reply_to": rid, "client": client, "code": "malformed",
          "definite": True, "text": text})


def serve(name, init, client_class):
    """Reads stdin until it closes, then exits at once (held leases expire).

    init(req) -> (cfg, init_ok fields): raises Unsupported or Malformed (or
    ValueError, TypeError, OSError) to refuse. client_class(cfg, idx) is a
    Client subclass; each client's requests go to its worker thread.
    """
    global NAME
    NAME = name
    cfg = None
    clients = {}
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            break
        raw = raw.strip()
        if not raw:
            continue
        try:
            req = json.loads(raw)
        except ValueError as e:
            malformed("not JSON: %s" % e)
            continue
        if not isinstance(req, dict):
            malformed("not a JSON object")
            continue
        rid = req.get("id")
        cl = req.get("client")
        cl_ok = isinstance(cl, int) and not isinstance(cl, bool)
        if not isinstance(rid, int) or isinstance(rid, bool):
            malformed("id missing or not an integer", None, cl if cl_ok else None)
            continue
        typ = req.get("type")
        if typ == "init":
            if cfg is not None:
                malformed("init sent twice", rid)
                continue
            try:
                cfg, ok = init(req)
            except Unsupported as e:
                send({"type": "error", "in_reply_to": rid, "code": "unsupported", "definite": True, "text": str(e)})
                continue
            except (Malformed, ValueError, TypeError, OSError) as e:
                send({"type": "error", "in_reply_to": rid, "code": "malformed", "definite": True, "text": str(e)})
                continue
            msg = {"type": "init_ok", "in_reply_to": rid}
            msg.update(ok)
            send(msg)
            continue
        if typ == "clock" and cl_ok and cl >= 0:
            # the wall clock as the libraries read it (time.time: the clock
            # shim's clock_gettime when lockbench moves this process's clock)
            send({"type": "clock_ok", "in_reply_to": rid, "client": cl, "now_ms": time.time() * 1000})
            continue
        if typ not in REQUIRED:
            malformed("unknown type %r" % (typ,), rid, cl if cl_ok else None)
            continue
        if not cl_ok or cl < 0:
            malformed("%s: client missing or not an integer >= 0" % typ, rid)
            continue
        bad = [f for f, ty in REQUIRED[typ] if not isinstance(req.get(f), ty) or isinstance(req.get(f), bool)]
        if bad:
            malformed("%s: field %s missing or of the wrong type" % (typ, ", ".join(bad)), rid, cl)
            continue
        if cfg is None:
            malformed("%s before init" % typ, rid, cl)
            continue
        if not req["key"].startswith(cfg.prefix):
            malformed("key %r does not start with the prefix %r" % (req["key"], cfg.prefix), rid, cl)
            continue
        c = clients.get(cl)
        if c is None:
            c = clients[cl] = client_class(cfg, cl)
        c.q.put(req)
    # stdin closed: leave at once, held leases expire by themselves
    with _out_lock:
        try:
            sys.stdout.flush()
        except Exception:
            pass
    os._exit(0)


def acquire_lock(lock, cfg):
    """A lock's acquire as cfg asks it (the drivers whose library's acquire
    takes blocking= and timeout=, python-redis-lock's and pottery's, in their
    acquire and their bare calls alike): blocking up to cfg.timeout, or one
    try."""
    if cfg.blocking:
        return lock.acquire(blocking=True, timeout=cfg.timeout)
    return lock.acquire(blocking=False)


def language():
    return "python %d.%d.%d" % sys.version_info[:3]


def bare(name, init, calls_of):
    """A driver's bare loop (docs/drivers.md, "The bare loop"), calibrate
    --driver's reference: reads init and the loop request on stdin, runs
    one thread per client cycling acquire then release on a lock name of
    its own through the library's calls, and writes one loop_ok line (the
    measured phase's cycles, its time, this process's CPU in it, the
    acquires' median). No protocol in the way.

    init(req) -> (cfg, init_ok fields), the driver's own; calls_of(cfg, idx)
    -> calls(key) -> (acquire, release): the library's calls for a lock of
    key, as the driver makes them; acquire() is true when it took the lock.
    """
    global NAME
    NAME = name
    try:
        req = json.loads(sys.stdin.readline())
        loop = json.loads(sys.stdin.readline())
        cfg, info = init(req)
        stop = threading.Event()
        counts = [0] * loop["clients"]
        took = [[] for _ in counts]
        measuring = [False]
        failed = []

        def client(i):
            calls = calls_of(cfg, i)
            key = "%sc0:lock:%d" % (req["prefix"], i)
            mine = took[i]
            try:
                while not stop.is_set():
                    acquire, release = calls(key)
                    t0 = time.monotonic()
                    if not acquire():
                        raise RuntimeError("acquire refused %s, a name of the client's own" % key)
                    t = time.monotonic() - t0
                    release()
                    counts[i] += 1
                    if measuring[0]:
                        mine.append(t)
            except Exception as e:
                failed.append(e)
                stop.set()

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(len(counts))]
        for t in threads:
            t.start()
        time.sleep(loop["warmup_ms"] / 1000.0)
        warmup = sum(counts)
        cpu0, t0 = time.process_time(), time.monotonic()
        measuring[0] = True
        time.sleep(loop["duration_ms"] / 1000.0)
        stop.set()
        for t in threads:
            t.join()
        elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu0
        if failed:
            raise failed[0]
        all_took = sorted(t for ts in took for t in ts)
        send({"type": "loop_ok", "library": info["library"], "version": info["version"],
              "cycles": sum(counts) - warmup, "warmup_cycles": warmup, "elapsed_us": elapsed * 1e6, "cpu_us": cpu * 1e6,
              "acquire_p50_us": all_took[len(all_took) // 2] * 1e6 if all_took else 0})
    except Exception as e:
        code = "unsupported" if isinstance(e, Unsupported) else "crash"
        send({"type": "error", "code": code, "definite": True, "text": err_text(e)})
        sys.exit(1)
