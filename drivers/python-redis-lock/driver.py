"""lockbench lock driver for ionelmc's python-redis-lock (redis_lock.Lock), protocol 1.

  venv/bin/python driver.py          python-redis-lock: no renewal, expire = the TTL
  venv/bin/python driver.py --renew  python-redis-lock-renew: Lock(auto_renewal=True),
                                     whose thread extends the lock every expire*2/3 s;
                                     each extension is told as renewed, a failed one
                                     as lease_lost

The protocol is drivers/python-common/lockdriver.py's. The clients share one
redis.Redis (or a Sentinel's master_for); each acquire builds a
redis_lock.Lock and calls acquire(), which tries SET NX EX and waits on the
lock's signal list with BLPOP (a release pushes to it). Run by this folder's
venv (python-redis-lock 4.0.0 and redis-py 8.1.0 from PyPI, make drivers).
"""

import math
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
import lockdriver as P  # noqa: E402

try:
    import redis
    import redis_lock
except ImportError as e:  # lockbench shows stderr when init fails
    sys.stderr.write("python-redis-lock driver: cannot import redis_lock (%s): run make drivers\n" % e)
    sys.exit(3)

RENEW = "--renew" in sys.argv
NAME = "python-redis-lock-renew" if RENEW else "python-redis-lock"
MODES = ["single", "sentinel"]


class TimedRedis(redis.Redis):
    """redis.Redis that notes, per thread, when it last sent a SET: the Lock's
    acquire loop sends its SET NX EX through it, so the driver can tell the
    validity left when acquire returned. It changes nothing else."""

    _sets = threading.local()

    def set(self, *args, **kwargs):
        TimedRedis._sets.at = time.monotonic()
        return super().set(*args, **kwargs)


def last_set():
    return getattr(TimedRedis._sets, "at", None)


class PrefixedLock(redis_lock.Lock):
    """redis_lock.Lock with its two keys under lockbench's prefix, and its
    renewal thread's outcomes told to the lease's client.

    The library names its keys 'lock:NAME' and 'lock-signal:NAME', outside any
    prefix; they become PREFIX + 'lock:' + NAME and PREFIX + 'lock-signal:' +
    NAME (NAME: the request's key less the prefix). extend() is the library's;
    called from the renewal thread, it also sends renewed, or lease_lost when
    it raises (the library's thread then ends, as it does without the driver).
    """

    def __init__(self, client, prefix, name, on_renewed=None, on_lost=None, **kwargs):
        super().__init__(client, name, **kwargs)
        self._name = prefix + "lock:" + name
        self._signal = prefix + "lock-signal:" + name
        self.on_renewed = on_renewed
        self.on_lost = on_lost

    def extend(self, expire=None):
        renewing = threading.current_thread() is self._lock_renewal_thread
        t0 = time.monotonic()
        try:
            super().extend(expire)
        except Exception as e:
            if renewing and self.on_lost:
                self.on_lost(self, e)
            raise
        if renewing and self.on_renewed:
            self.on_renewed(self, self._expire * 1000.0 - (time.monotonic() - t0) * 1000.0)


def renewal_thread_ended(args):
    """threading.excepthook: a renewal thread that raised (its lease_lost was
    sent) is logged in one line instead of a traceback."""
    P.log("thread %s ended: %s" % (args.thread.name if args.thread else "?", P.err_text(args.exc_value)))


class Config(P.Init):
    def __init__(self, req):
        super().__init__(req, MODES)
        if self.renew and not RENEW:
            raise P.Unsupported("python-redis-lock is the form without renewal; its auto_renewal is the registered name python-redis-lock-renew")
        if RENEW and not self.renew:
            P.log("renew:false asked of the auto_renewal form: it renews anyway (that is the form)")
        # expire is whole seconds (the library: int(expire), SET NX EX); a
        # TTL that is not is rounded up, never down (int(0.2) would be 0,
        # which Redis refuses); 0: the library's default, no expiry
        if self.ttl_ms > 0:
            self.expire = max(1, math.ceil(self.ttl_ms / 1000.0))
            if self.expire * 1000.0 != self.ttl_ms:
                P.log("ttl_ms %g: python-redis-lock's expire is whole seconds: %d s" % (self.ttl_ms, self.expire))
        elif RENEW:
            raise P.Unsupported("auto_renewal needs an expire: ttl_ms 0 (no expiry) is not supported")
        else:
            self.expire = None
        self.blocking = self.retry_kind != "none"
        if self.retry_kind not in ("none", "library"):
            P.log("retry %s: python-redis-lock waits with BLPOP on its signal list, it has no retry policy" % self.retry_kind)
        # timeout: whole seconds too (int(timeout) in acquire; under 1 s
        # would be 0, waiting forever); without renewal the library refuses
        # one above expire (TimeoutTooLarge), so the wait is cut to expire
        self.timeout = None
        if self.blocking and self.acquire_timeout_ms:
            self.timeout = max(1, math.ceil(self.acquire_timeout_ms / 1000.0))
            if self.expire and not RENEW and self.timeout > self.expire:
                self.timeout = self.expire
        self._client = None
        self._client_lock = threading.Lock()
        self.retries = 0

    def shared_client(self):
        with self._client_lock:
            if self._client is None:
                if self.mode == "single":
                    host, port = self.addrs[0]
                    self._client = TimedRedis(host=host, port=port, **self.connection_kwargs())
                else:
                    from redis.sentinel import Sentinel
                    s = Sentinel(self.addrs, sentinel_kwargs=self.tls_kwargs(), **self.connection_kwargs())
                    self._client = s.master_for(self.master_name, redis_class=TimedRedis)
                self.retries = P.retries_of(self._client)
            return self._client


class Client(P.Client):
    """One lockbench client: its leases are PrefixedLocks under (key, token)."""

    def definite(self, exc):
        return P.is_definite(exc, self.cfg.mode, self.cfg.retries)

    def renewed(self, lock, validity_ms):
        self.notice("renewed", lock.id, validity_ms=round(validity_ms, 3))

    def lost(self, lock, exc):
        self.notice("lease_lost", lock.id, text="renewal failed: " + P.err_text(exc))

    def acquire(self, req):
        cfg = self.cfg
        key = req["key"]
        try:
            lock = PrefixedLock(cfg.shared_client(), cfg.prefix, key[len(cfg.prefix):], expire=cfg.expire,
                                auto_renewal=RENEW, on_renewed=self.renewed, on_lost=self.lost)
        except Exception as e:
            self.error(req, e, True)
            return
        t0 = time.monotonic()
        try:
            ok = P.acquire_lock(lock, cfg)
        except Exception as e:
            self.error(req, e, self.definite(e))
            return
        t1 = time.monotonic()
        took_us = int((t1 - t0) * 1e6)
        if not ok:
            self.refused(req, took_us)
            return
        self.leases[(key, lock.id)] = lock
        fields = {"token": lock.id, "took_us": took_us}
        sent = last_set()
        if cfg.expire and sent is not None:
            fields["validity_ms"] = round(cfg.expire * 1000.0 - (t1 - sent) * 1000.0, 3)
        self.reply(req, "acquire_ok", **fields)

    def release(self, req):
        lock = self.held(req, pop=True)
        if lock is None:
            return
        t0 = time.monotonic()
        try:
            lock.release()  # stops the renewal thread first
        except redis_lock.NotAcquired:
            self.reply(req, "lease_gone")
            return
        except Exception as e:
            self.error(req, e, self.definite(e))
            return
        self.reply(req, "release_ok", took_us=int((time.monotonic() - t0) * 1e6))

    def extend(self, req):
        lock = self.held(req)
        if lock is None:
            return
        # EXPIRE in whole seconds, rounded up as the TTL is
        expire = max(1, math.ceil(float(req["ttl_ms"]) / 1000.0))
        t0 = time.monotonic()
        try:
            lock.extend(expire=expire)
        except redis_lock.NotAcquired:
            self.leases.pop((req["key"], req["token"]), None)
            self.reply(req, "lease_gone")
            return
        except redis_lock.NotExpirable as e:
            self.reply(req, "error", code="unsupported", definite=True, text=P.err_text(e))
            return
        except Exception as e:
            self.error(req, e, self.definite(e))
            return
        self.reply(req, "extend_ok", validity_ms=round(expire * 1000.0 - (time.monotonic() - t0) * 1000.0, 3))


def bare_calls(cfg, idx):
    """The bare loop's calls (bare.py): for a key, the PrefixedLock built as
    acquire builds it (without renewal), its acquire and release."""
    if RENEW:
        raise P.Unsupported("python-redis-lock-renew has no bare loop (python-redis-lock has)")
    client = cfg.shared_client()

    def calls(key):
        lock = PrefixedLock(client, cfg.prefix, key[len(cfg.prefix):], expire=cfg.expire)
        return lambda: P.acquire_lock(lock, cfg), lock.release

    return calls



def init(req):
    cfg = Config(req)
    return cfg, {"library": "python-redis-lock", "version": redis_lock.__version__,
                 "language": "%s (redis-py %s)" % (P.language(), redis.__version__),
                 "capabilities": {"extend": True, "renewal": RENEW, "fencing": False,
                                  "semaphore": False, "blocking": True, "modes": MODES}}


if __name__ == "__main__":
    threading.excepthook = renewal_thread_ended
    P.serve(NAME, init, Client)
