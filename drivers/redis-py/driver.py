#!/usr/bin/python3
"""lockbench lock driver for redis-py's redis.lock.Lock (protocol 1).

The protocol (framing, validation, a worker thread per client) is
drivers/python-common/lockdriver.py's; this file maps lockbench's lock
options to redis.lock.Lock. The clients share one redis client object
(redis.Redis, a Sentinel's master_for, or RedisCluster), whose thread-safe
connection pool gives each busy worker a connection of its own. Each Lock is
built with thread_local=False: the Lock object outlives the request that
made it.

Run by Debian's /usr/bin/python3 with its python3-redis (4.3.x): the
redis-py driver; and by drivers/redis-py-8's virtual environment (redis-py
8.x from PyPI): the redis-py-8 driver. Which redis-py it is decides only
what init_ok says and which errors are definite (retries_of).

  driver.py [--name=NAME]              the Lock as it is: no renewal
  driver.py --name=NAME --reacquire    the user's renewal loop of redis-py's
                                       docs: Lock(timeout=ttl), a thread calls
                                       lock.reacquire() every timeout/3 while
                                       the lease is held
  driver.py --name=NAME --timeout0     Lock(timeout=0) whatever the ttl (no
                                       expiry: SET NX without PX), a thread
                                       calling lock.reacquire() every 100 ms:
                                       the trigger of redis-py#4279 (up to
                                       8.1.0 the reacquire's PEXPIRE 0 deletes
                                       the key and reports success)
  driver.py --name=NAME --release-retry
                                       the Lock as it is, on a client that does
                                       not resend a command itself
                                       (Retry(NoBackoff(), 0)); a release that
                                       fails on a connection error or timeout
                                       is retried by the user's code every
                                       100 ms for up to 2 s: the trigger of
                                       redis-py#4258 (up to 8.1.0 release()
                                       drops its token before it sends, so the
                                       retry is refused and the key stays held
                                       until its TTL)

In both renewing forms each reacquire that returns is told as renewed, one
that raises (LockNotOwnedError, or any other error: the loop ends) as
lease_lost; release stops the loop first. --name only names the driver in
its log.
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
import lockdriver as P  # noqa: E402

try:
    import redis
    from redis import exceptions as rexc
    from redis.lock import Lock
except ImportError as e:  # lockbench shows stderr when init fails
    sys.stderr.write("redis-py driver: cannot import redis (%s); install it with: apt-get install -y python3-redis "
                     "(redis-py-8: make drivers)\n" % e)
    sys.exit(3)

NAME = next((a[len("--name="):] for a in sys.argv[1:] if a.startswith("--name=")), "redis-py")
REACQUIRE = "--reacquire" in sys.argv  # renewal by lock.reacquire() every timeout/3
TIMEOUT0 = "--timeout0" in sys.argv  # Lock(timeout=0), lock.reacquire() every 100 ms
RELEASE_RETRY = "--release-retry" in sys.argv  # no resends by redis-py; the user retries a failed release
if REACQUIRE + TIMEOUT0 + RELEASE_RETRY > 1:
    sys.stderr.write("redis-py driver: --reacquire, --timeout0 and --release-retry are forms: give one\n")
    sys.exit(2)
RENEWS = REACQUIRE or TIMEOUT0
TIMEOUT0_INTERVAL = 0.1  # seconds between the timeout0 form's reacquires
RELEASE_RETRY_EVERY, RELEASE_RETRY_FOR = 0.1, 2.0  # seconds: the release-retry form's retries
MODES = ["single", "sentinel", "cluster"]


class TimedLock(Lock):
    """redis.lock.Lock that remembers when its last SET NX was sent, so that the
    driver can say how much of the lease was left when acquire returned. It
    changes nothing of the lock's behaviour."""

    last_try = None

    def do_acquire(self, token):
        self.last_try = time.monotonic()
        return super().do_acquire(token)


class Config(P.Init):
    def __init__(self, req):
        super().__init__(req, MODES)
        self._client = None
        self._client_lock = threading.Lock()
        self.retries = 0
        if self.renew and not RENEWS:
            raise P.Unsupported("redis-py's Lock has no automatic renewal (extend is manual); renew:true is not supported "
                                "(its user's renewal loop is the registered name redis-py-8-reacquire)")
        if RENEWS and not self.renew:
            P.log("renew:false asked of a form that renews with lock.reacquire(): it renews anyway (that is the form)")
        if TIMEOUT0:
            # redis-py#4279's trigger: timeout=0 exactly, whatever lockbench's
            # ttl. do_acquire sends SET NX without PX (0 is falsy): no expiry
            P.log("Lock(timeout=0), the trigger of redis-py#4279: lockbench's ttl_ms %g is not used; "
                  "the lock has no expiry, lock.reacquire() every %d ms" % (self.ttl_ms, TIMEOUT0_INTERVAL * 1000))
            self.ttl_ms = None
            self.timeout = 0
            self.renew_every = TIMEOUT0_INTERVAL
        elif REACQUIRE and self.ttl_ms <= 0:
            # ttl 0 would be the library's default, timeout=None, which
            # reacquire() refuses (LockError "no timeout")
            raise P.Unsupported("the reacquire form needs a timeout: ttl_ms 0 is redis-py's default timeout=None, "
                                "which Lock.reacquire() refuses")
        else:
            # ttl 0: the library's default, which is no expiry at all (timeout=None)
            self.ttl_ms = self.ttl_ms if self.ttl_ms > 0 else None
            self.timeout = self.ttl_ms / 1000.0 if self.ttl_ms else None
            self.renew_every = self.timeout / 3.0 if REACQUIRE else None
        kind, mn, mx = self.retry_kind, self.retry_min_ms, self.retry_max_ms
        self.blocking = kind != "none"
        if kind in ("none", "library"):
            self.sleep = 0.1  # Lock's default
        elif kind == "spin":
            self.sleep = 0.0
        elif kind in ("fixed", "exp"):
            # exp: Lock sleeps a fixed time between tries, no backoff; the
            # first step of lockbench's backoff is used
            self.sleep = mn / 1000.0
        else:  # random: no jitter in Lock: the mean of the uniform range
            self.sleep = (mn + mx) / 2000.0
        # absent or <= 0: wait forever (Lock's blocking_timeout=None)
        self.blocking_timeout = self.acquire_timeout_ms / 1000.0 if self.acquire_timeout_ms else None

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
                self.retries = P.retries_of(self._client)
            return self._client

    def connection_kwargs(self):
        kw = super().connection_kwargs()
        if RELEASE_RETRY:
            # a failed command is the caller's to retry (the form's point):
            # redis-py 8's default resends up to 10 times over seconds,
            # which hides a short outage from release()
            from redis.backoff import NoBackoff
            from redis.retry import Retry
            kw["retry"] = Retry(NoBackoff(), 0)
        return kw

    def new_client(self):
        if self.mode == "single":
            host, port = self.addrs[0]
            return redis.Redis(host=host, port=port, **self.connection_kwargs())
        if self.mode == "sentinel":
            from redis.sentinel import Sentinel
            s = Sentinel(self.addrs, sentinel_kwargs=self.tls_kwargs(), **self.connection_kwargs())
            return s.master_for(self.master_name)
        from redis.cluster import RedisCluster, ClusterNode
        nodes = [ClusterNode(h, p) for h, p in self.addrs]
        return RedisCluster(startup_nodes=nodes, **self.connection_kwargs())


class Renewal:
    """The user's renewal loop of a held lease (the renewing forms): every
    `every` seconds lock.reacquire(), each return told as renewed (with the
    validity left: the timeout less the call's time; none for timeout=0, a
    lock without expiry), a raise as lease_lost, which ends the loop. stop()
    wakes it at once and ends it; a reacquire in flight then is not told."""

    def __init__(self, client, lock, token, every):
        self.client, self.lock, self.token, self.every = client, lock, token, every
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="renew-%d-%s" % (client.idx, token), daemon=True)
        self.thread.start()

    def stop(self):
        self.stopped.set()

    def _run(self):
        lease_ms = self.lock.timeout * 1000.0 if self.lock.timeout else None
        while not self.stopped.wait(self.every):
            t0 = time.monotonic()
            try:
                ok = self.lock.reacquire()
            except Exception as e:
                if not self.stopped.is_set():
                    self.client.notice("lease_lost", self.token, text="renewal failed: " + P.err_text(e))
                return
            if self.stopped.is_set():
                return
            if not ok:  # reacquire raises rather than returns False; in case one does
                self.client.notice("lease_lost", self.token, text="renewal failed: reacquire() returned %r" % (ok,))
                return
            fields = {}
            if lease_ms:
                fields["validity_ms"] = round(lease_ms - (time.monotonic() - t0) * 1000.0, 3)
            self.client.notice("renewed", self.token, **fields)


def stop_renewal(lock):
    renewal = getattr(lock, "renewal", None)
    if renewal is not None:
        renewal.stop()


class Client(P.Client):
    """One lockbench client: its leases are TimedLocks under (key, token)."""

    def definite(self, exc):
        return P.is_definite(exc, self.cfg.mode, self.cfg.retries)

    def acquire(self, req):
        cfg = self.cfg
        key = req["key"]
        try:
            lock = cfg.shared_client().lock(key, timeout=cfg.timeout, sleep=cfg.sleep, blocking=cfg.blocking,
                                            blocking_timeout=cfg.blocking_timeout, lock_class=TimedLock,
                                            thread_local=False)
        except Exception as e:  # RedisCluster connects while it is built
            self.error(req, e, cfg.mode != "cluster" or P.is_definite(e, "single", cfg.retries))
            return
        t0 = time.monotonic()
        try:
            ok = lock.acquire()
        except Exception as e:
            self.error(req, e, self.definite(e))
            return
        t1 = time.monotonic()
        took_us = int((t1 - t0) * 1e6)
        if not ok:
            self.refused(req, took_us)
            return
        token = lock.local.token
        token = token.decode() if isinstance(token, bytes) else str(token)
        self.leases[(key, token)] = lock
        fields = {"token": token, "took_us": took_us}
        if cfg.ttl_ms is not None and lock.last_try is not None:
            fields["validity_ms"] = round(cfg.ttl_ms - (t1 - lock.last_try) * 1000.0, 3)
        if RENEWS:
            # started before the reply: a release this client sends next finds it
            lock.renewal = Renewal(self, lock, token, cfg.renew_every)
        self.reply(req, "acquire_ok", **fields)

    def release(self, req):
        lock = self.held(req, pop=True)
        if lock is None:
            return
        stop_renewal(lock)
        t0 = time.monotonic()
        try:
            lock.release()
        except (rexc.LockNotOwnedError, rexc.LockError):
            self.reply(req, "lease_gone")
            return
        except Exception as e:
            if RELEASE_RETRY and isinstance(e, (rexc.ConnectionError, rexc.TimeoutError)):
                self.retry_release(req, lock, e, t0)
                return
            # before 8.2.0 the library cleared its token before the call:
            # the lease is not retried by this client; lockbench sees the error
            self.error(req, e, self.definite(e))
            return
        self.reply(req, "release_ok", took_us=int((time.monotonic() - t0) * 1e6))

    def retry_release(self, req, lock, first, t0):
        """The release-retry form's user code after a release that failed on
        the network (first): lock.release() again every RELEASE_RETRY_EVERY
        seconds until it answers or RELEASE_RETRY_FOR has passed. A LockError
        that is not LockNotOwnedError is the library refusing without asking
        Redis (its token is gone: redis-py#4258 before 8.2.0); the key it
        held is still there."""
        deadline = t0 + RELEASE_RETRY_FOR
        last = first
        while time.monotonic() < deadline:
            time.sleep(RELEASE_RETRY_EVERY)
            try:
                lock.release()
            except rexc.LockNotOwnedError:
                self.reply(req, "lease_gone")
                return
            except rexc.LockError as e:
                self.reply(req, "error", code="io", definite=False,
                           text="release failed (%s) and its retry was refused: %s; the key is left held" %
                                (P.err_text(first), P.err_text(e)))
                return
            except (rexc.ConnectionError, rexc.TimeoutError) as e:
                last = e
                continue
            self.reply(req, "release_ok", took_us=int((time.monotonic() - t0) * 1e6))
            return
        self.error(req, last, False)

    def extend(self, req):
        ttl_ms = float(req["ttl_ms"])
        lock = self.held(req)
        if lock is None:
            return
        if self.cfg.timeout is None:
            self.reply(req, "error", code="unsupported", definite=True,
                       text="redis-py cannot extend a lock without a timeout (ttl_ms 0 = no expiry)")
            return
        if TIMEOUT0:
            # Lock.extend's script answers 0 for a key without a PTTL (-1),
            # so the library would say LockNotOwnedError of a lock still held
            self.reply(req, "error", code="unsupported", definite=True,
                       text="redis-py cannot extend Lock(timeout=0): its key has no expiry, which Lock.extend "
                            "takes for a lock no longer owned")
            return
        t0 = time.monotonic()
        try:
            # replace_ttl=True: the lease is set to ttl_ms from now, as
            # lockbench's extend means (False would add ttl_ms to what is left)
            lock.extend(ttl_ms / 1000.0, replace_ttl=True)
        except (rexc.LockNotOwnedError, rexc.LockError):
            stop_renewal(lock)
            self.leases.pop((req["key"], req["token"]), None)
            self.reply(req, "lease_gone")
            return
        except Exception as e:
            self.error(req, e, self.definite(e))
            return
        t1 = time.monotonic()
        self.reply(req, "extend_ok", validity_ms=round(int(ttl_ms) - (t1 - t0) * 1000.0, 3))


def bare_calls(cfg, idx):
    """The bare loop's calls (bare.py): for a key, the Lock built as acquire
    builds it (the shared client, a TimedLock, thread_local=False), its
    acquire() and release()."""
    client = cfg.shared_client()

    def calls(key):
        lock = client.lock(key, timeout=cfg.timeout, sleep=cfg.sleep, blocking=cfg.blocking,
                           blocking_timeout=cfg.blocking_timeout, lock_class=TimedLock, thread_local=False)
        return lock.acquire, lock.release

    return calls



def init(req):
    cfg = Config(req)
    return cfg, {"library": "redis-py", "version": redis.__version__, "language": P.language(),
                 "capabilities": {"extend": not TIMEOUT0, "renewal": RENEWS, "fencing": False,
                                  "semaphore": False, "blocking": True, "modes": MODES}}


if __name__ == "__main__":
    P.serve(NAME, init, Client)
