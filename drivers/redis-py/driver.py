#!/usr/bin/python3
"""lockbench lock driver for redis-py's redis.lock.Lock (protocol 1).

Speaks lockbench's lock-driver protocol (docs: /work/shared-protocol.md, kept
in the repository as the driver package's contract) on stdin/stdout, one JSON
object per line. The main thread only reads stdin and hands each request to
the worker thread of its client, so a blocking library call never stops the
reader. The clients share one redis client object (redis.Redis, a Sentinel's
master_for, or RedisCluster), whose thread-safe connection pool gives each
busy worker a connection of its own. Each Lock is built with
thread_local=False: the Lock object outlives the request that made it.

Run with Debian's /usr/bin/python3 and its python3-redis (4.3.x).
"""

import json
import os
import queue
import sys
import threading
import time

try:
    import redis
    from redis import exceptions as rexc
    from redis.lock import Lock
except ImportError as e:  # lockbench shows stderr when init fails
    sys.stderr.write("redis-py driver: cannot import redis (%s); install it with: apt-get install -y python3-redis\n" % e)
    sys.exit(3)

PROTOCOL = 1
LIBRARY = "redis-py"
MODES = ["single", "sentinel", "cluster"]

_out_lock = threading.Lock()


def send(msg):
    line = json.dumps(msg, separators=(",", ":")) + "\n"
    with _out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def log(text):
    try:
        sys.stderr.write("redis-py driver: %s\n" % text)
        sys.stderr.flush()
    except Exception:
        pass


class Malformed(Exception):
    pass


class Unsupported(Exception):
    pass


class TimedLock(Lock):
    """redis.lock.Lock that remembers when its last SET NX was sent, so that the
    driver can say how much of the lease was left when acquire returned. It
    changes nothing of the lock's behaviour."""

    last_try = None

    def do_acquire(self, token):
        self.last_try = time.monotonic()
        return super().do_acquire(token)


def is_definite(exc, mode):
    """True only where redis-py certainly sent nothing that could have taken effect."""
    if isinstance(exc, rexc.ResponseError):
        # the server answered with an error: the command (a SET or a script
        # refused as a whole, e.g. READONLY) did not run
        return mode != "cluster"
    if mode == "cluster":
        # RedisCluster retries a command on ConnectionError/TimeoutError after
        # re-reading the slots (cluster_error_retry_attempts=3), so a failure
        # to connect may follow a send that did take effect
        return False
    if isinstance(exc, getattr(rexc, "MasterNotFoundError", ())):
        return True
    if isinstance(exc, (rexc.ConnectionError, rexc.TimeoutError)):
        text = str(exc)
        # Connection.connect() failed: no command was written on this call,
        # and redis-py (retry=Retry(NoBackoff(), 0), its default) does not
        # retry a command after a send
        if "connecting to" in text or "Timeout connecting" in text:
            return True
    return False


def err_text(exc):
    return "%s: %s" % (type(exc).__name__, str(exc).replace("\n", " ").strip())


class Config:
    def __init__(self, req):
        if req.get("protocol") != PROTOCOL:
            raise Unsupported("protocol %r not supported (this driver speaks %d)" % (req.get("protocol"), PROTOCOL))
        rc = req.get("redis")
        if not isinstance(rc, dict):
            raise Malformed("init: redis missing")
        self.mode = rc.get("mode", "single")
        if self.mode not in MODES:
            raise Unsupported("mode %r not supported by redis-py's Lock driver (modes: %s)" % (self.mode, ", ".join(MODES)))
        addrs = rc.get("addrs")
        if not isinstance(addrs, list) or not addrs:
            raise Malformed("init: redis.addrs missing")
        self.addrs = [split_addr(a) for a in addrs]
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
        self._client = None
        self._client_lock = threading.Lock()
        lk = req.get("lock")
        if not isinstance(lk, dict):
            raise Malformed("init: lock missing")
        if int(lk.get("limit", 1) or 1) != 1:
            raise Unsupported("redis-py's Lock is a mutex: limit %r (a semaphore) is not supported" % lk.get("limit"))
        if lk.get("renew"):
            raise Unsupported("redis-py's Lock has no automatic renewal (extend is manual); renew:true is not supported")
        ttl_ms = float(lk.get("ttl_ms", 0) or 0)
        # ttl 0: the library's default, which is no expiry at all (timeout=None)
        self.ttl_ms = ttl_ms if ttl_ms > 0 else None
        self.timeout = ttl_ms / 1000.0 if ttl_ms > 0 else None
        retry = lk.get("retry") or {"kind": "library"}
        kind = retry.get("kind", "library")
        mn = float(retry.get("min_ms", 0) or 0)
        mx = float(retry.get("max_ms", mn) or mn)
        self.blocking = True
        if kind == "none":
            self.blocking = False
            self.sleep = 0.1
        elif kind == "spin":
            self.sleep = 0.0
        elif kind == "fixed":
            self.sleep = mn / 1000.0
        elif kind == "exp":
            # Lock sleeps a fixed time between tries: no backoff; the first
            # step of lockbench's backoff is used
            self.sleep = mn / 1000.0
        elif kind == "random":
            # no jitter in Lock: the mean of the uniform range
            self.sleep = (mn + mx) / 2000.0
        elif kind == "library":
            self.sleep = 0.1  # Lock's default
        else:
            raise Malformed("init: unknown retry kind %r" % kind)
        self.retry_kind = kind
        at = lk.get("acquire_timeout_ms")
        # absent or <= 0: wait forever (Lock's blocking_timeout=None)
        self.blocking_timeout = float(at) / 1000.0 if at is not None and float(at) > 0 else None

    def connection_kwargs(self):
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
            # redis-py 4.3 cannot set SNI/verification name apart from the host
            log("tls.server_name %r ignored: redis-py checks the certificate against the address it dials" % t["server_name"])
        return kw

    def shared_client(self):
        """The process's one redis client, built on first use. Its connection
        pool is thread-safe and grows to one connection per busy worker, so
        each client thread still has a connection of its own while it waits;
        one RedisCluster (which reads the slot map and COMMAND when built)
        instead of one per client keeps 64 clients from taking seconds to
        start."""
        with self._client_lock:
            if self._client is None:
                self._client = self.new_client()
            return self._client

    def new_client(self):
        if self.mode == "single":
            host, port = self.addrs[0]
            return redis.Redis(host=host, port=port, **self.connection_kwargs())
        if self.mode == "sentinel":
            from redis.sentinel import Sentinel
            sentinel_kwargs = self.tls_kwargs()
            s = Sentinel(self.addrs, sentinel_kwargs=sentinel_kwargs, **self.connection_kwargs())
            return s.master_for(self.master_name)
        if self.mode == "cluster":
            from redis.cluster import RedisCluster, ClusterNode
            nodes = [ClusterNode(h, p) for h, p in self.addrs]
            return RedisCluster(startup_nodes=nodes, **self.connection_kwargs())
        raise Unsupported(self.mode)


def split_addr(a):
    if not isinstance(a, str) or ":" not in a:
        raise Malformed("bad address %r (want host:port)" % (a,))
    host, _, port = a.rpartition(":")
    host = host.strip("[]")
    return host, int(port)


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


class Client:
    """One lockbench client: a worker thread, its redis client and its leases."""

    def __init__(self, cfg, idx):
        self.cfg = cfg
        self.idx = idx
        self.q = queue.SimpleQueue()
        self.r = None
        self.leases = {}  # (key, token) -> TimedLock
        t = threading.Thread(target=self.run, name="client-%d" % idx, daemon=True)
        t.start()

    def run(self):
        while True:
            req = self.q.get()
            try:
                self.handle(req)
            except Exception as e:  # a driver bug: say so, keep serving
                log("client %d: %s" % (self.idx, err_text(e)))
                send({"type": "error", "in_reply_to": req["id"], "client": self.idx,
                      "code": "crash", "definite": False, "text": err_text(e)})

    def redis(self):
        if self.r is None:
            self.r = self.cfg.shared_client()
        return self.r

    def reply(self, req, typ, **fields):
        m = {"type": typ, "in_reply_to": req["id"], "client": self.idx}
        m.update(fields)
        send(m)

    def error(self, req, exc, definite):
        code = "timeout" if isinstance(exc, rexc.TimeoutError) else (
            "redis" if isinstance(exc, rexc.ResponseError) else "io")
        self.reply(req, "error", code=code, definite=definite, text=err_text(exc))

    def handle(self, req):
        t = req["type"]
        if t == "acquire":
            self.acquire(req)
        elif t == "release":
            self.release(req)
        elif t == "extend":
            self.extend(req)

    def acquire(self, req):
        cfg = self.cfg
        key = req["key"]
        try:
            r = self.redis()
            lock = r.lock(key, timeout=cfg.timeout, sleep=cfg.sleep, blocking=cfg.blocking,
                          blocking_timeout=cfg.blocking_timeout, lock_class=TimedLock,
                          thread_local=False)
        except Exception as e:  # RedisCluster connects while it is built
            self.error(req, e, cfg.mode != "cluster" or is_definite(e, "single"))
            return
        t0 = time.monotonic()
        try:
            ok = lock.acquire()
        except Exception as e:
            self.error(req, e, is_definite(e, cfg.mode))
            return
        t1 = time.monotonic()
        took_us = int((t1 - t0) * 1e6)
        if not ok:
            self.reply(req, "not_acquired", reason="timeout" if cfg.blocking else "busy", took_us=took_us)
            return
        token = lock.local.token
        token = token.decode() if isinstance(token, bytes) else str(token)
        self.leases[(key, token)] = lock
        fields = {"token": token, "took_us": took_us}
        if cfg.ttl_ms is not None and lock.last_try is not None:
            fields["validity_ms"] = round(cfg.ttl_ms - (t1 - lock.last_try) * 1000.0, 3)
        self.reply(req, "acquire_ok", **fields)

    def release(self, req):
        key, token = req["key"], req["token"]
        lock = self.leases.pop((key, token), None)
        if lock is None:
            # not a lease this client holds: the library has no way to
            # release someone else's token, so nothing is sent
            self.reply(req, "lease_gone")
            return
        t0 = time.monotonic()
        try:
            lock.release()
        except (rexc.LockNotOwnedError, rexc.LockError) as e:
            self.reply(req, "lease_gone")
            return
        except Exception as e:
            # the library cleared its token before the call: the lease is
            # not retried by this client; lockbench sees the error
            self.error(req, e, is_definite(e, self.cfg.mode))
            return
        self.reply(req, "release_ok", took_us=int((time.monotonic() - t0) * 1e6))

    def extend(self, req):
        key, token = req["key"], req["token"]
        ttl_ms = float(req["ttl_ms"])
        lock = self.leases.get((key, token))
        if lock is None:
            self.reply(req, "lease_gone")
            return
        if self.cfg.timeout is None:
            self.reply(req, "error", code="unsupported", definite=True,
                       text="redis-py cannot extend a lock without a timeout (ttl_ms 0 = no expiry)")
            return
        t0 = time.monotonic()
        try:
            # replace_ttl=True: the lease is set to ttl_ms from now, as
            # lockbench's extend means (False would add ttl_ms to what is left)
            lock.extend(ttl_ms / 1000.0, replace_ttl=True)
        except (rexc.LockNotOwnedError, rexc.LockError) as e:
            self.leases.pop((key, token), None)
            self.reply(req, "lease_gone")
            return
        except Exception as e:
            self.error(req, e, is_definite(e, self.cfg.mode))
            return
        t1 = time.monotonic()
        self.reply(req, "extend_ok", validity_ms=round(int(ttl_ms) - (t1 - t0) * 1000.0, 3))


REQUIRED = {
    "acquire": (("key", str),),
    "release": (("key", str), ("token", str)),
    "extend": (("key", str), ("token", str), ("ttl_ms", (int, float))),
}


def malformed(text, rid=None, client=None):
    send({"type": "error", "in_reply_to": rid, "client": client, "code": "malformed",
          "definite": True, "text": text})


def main():
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
        if not isinstance(rid, int) or isinstance(rid, bool):
            malformed("id missing or not an integer", None, cl if isinstance(cl, int) else None)
            continue
        typ = req.get("type")
        if typ == "init":
            if cfg is not None:
                malformed("init sent twice", rid)
                continue
            try:
                cfg = Config(req)
            except Unsupported as e:
                send({"type": "error", "in_reply_to": rid, "code": "unsupported", "definite": True, "text": str(e)})
                continue
            except (Malformed, ValueError, TypeError, OSError) as e:
                send({"type": "error", "in_reply_to": rid, "code": "malformed", "definite": True, "text": str(e)})
                continue
            send({"type": "init_ok", "in_reply_to": rid, "library": LIBRARY, "version": redis.__version__,
                  "language": "python %d.%d.%d" % sys.version_info[:3],
                  "capabilities": {"extend": True, "renewal": False, "fencing": False,
                                   "semaphore": False, "blocking": True, "modes": MODES}})
            continue
        if typ not in REQUIRED:
            malformed("unknown type %r" % (typ,), rid, cl if isinstance(cl, int) else None)
            continue
        if not isinstance(cl, int) or isinstance(cl, bool) or cl < 0:
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
            c = clients[cl] = Client(cfg, cl)
        c.q.put(req)
    # stdin closed: leave at once, held leases expire by themselves
    with _out_lock:
        try:
            sys.stdout.flush()
        except Exception:
            pass
    os._exit(0)


if __name__ == "__main__":
    main()
