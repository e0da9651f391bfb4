"""lockbench lock driver for pottery's Redlock (pottery.Redlock), protocol 1.

Redlock over N independent masters (mode masters: one redis.Redis per master,
shared by every client), or over the one server of mode single. The protocol
is drivers/python-common/lockdriver.py's; each acquire builds a Redlock for
the key and calls acquire(), which sets the key on every master at once (a
thread each) and holds when a majority did within the lease less the drift,
retrying after a random pause. Run by this folder's venv (pottery 3.0.1 and
redis-py 8.1.0 from PyPI, make drivers).
"""

import importlib.metadata
import logging
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
import lockdriver as P  # noqa: E402

try:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry
    from pottery import Redlock
    from pottery.exceptions import ExtendUnlockedLock, QuorumIsImpossible, ReleaseUnlockedLock, TooManyExtensions
except ImportError as e:  # lockbench shows stderr when init fails
    sys.stderr.write("pottery-redlock driver: cannot import pottery (%s): run make drivers\n" % e)
    sys.exit(3)

NAME = "pottery-redlock"
MODES = ["single", "masters"]


class TimedRedlock(Redlock):
    """pottery.Redlock that notes when its last attempt on the masters began,
    so that the driver can tell the validity left when acquire returned (the
    library's own rule: the lease less its drift less the attempt's time). It
    changes nothing of the lock's behaviour. Its subclasses (one per process,
    made at init) set _KEY_PREFIX and _RETRY_DELAY, the class's own knobs."""

    last_try = None

    def _Redlock__acquire_masters(self, **kwargs):
        # Redlock.acquire calls self.__acquire_masters, i.e. this name
        self.last_try = time.monotonic()
        return Redlock._acquire_masters(self, **kwargs)

    def validity_ms(self, now):
        return (self.auto_release_time - self._Redlock__drift() - (now - self.last_try)) * 1000.0


class Config(P.Init):
    def __init__(self, req):
        super().__init__(req, MODES)
        if self.renew:
            raise P.Unsupported("pottery's Redlock has no automatic renewal (extend is manual, num_extensions times); renew:true is not supported")
        # ttl 0: the library's default auto_release_time (10 s)
        self.release_time = self.ttl_ms / 1000.0 if self.ttl_ms > 0 else Redlock._AUTO_RELEASE_TIME
        kind, mn, mx = self.retry_kind, self.retry_min_ms, self.retry_max_ms
        self.blocking = kind != "none"
        # acquire sleeps random.uniform(0, _RETRY_DELAY) between attempts:
        # a delay whose mean is the policy's (fixed, exp's first step:
        # 2*min_ms; random: min_ms+max_ms); library: its 0.2 s
        if kind in ("none", "library"):
            delay = Redlock._RETRY_DELAY
        elif kind == "spin":
            delay = 0.0
        elif kind in ("fixed", "exp"):
            delay = 2 * mn / 1000.0
        else:
            delay = (mn + mx) / 1000.0
        self.timeout = self.acquire_timeout_ms / 1000.0 if self.blocking and self.acquire_timeout_ms else -1
        # the library names its key 'redlock:KEY'; under lockbench's prefix:
        # PREFIX + 'redlock:' + KEY less the prefix
        self.lock_class = type("PrefixedRedlock", (TimedRedlock,),
                               {"_KEY_PREFIX": self.prefix + "redlock", "_RETRY_DELAY": delay})
        # Two departures from redis-py 8's defaults, as the Node drivers
        # depart from ioredis's, so that a master that is down or silent is
        # a missing vote soon instead of holding every Redlock attempt (an
        # attempt that reaches no majority waits for every master's answer):
        # a node timeout small beside the lease (the Redlock algorithm's
        # advice), at most 1 s instead of 5 s; and no retries (redis-py 8
        # resends a command 10 times, backing off up to 1 s, after a
        # connection error: 3 s and more on a master that is down).
        node_timeout = min(1.0, self.release_time)
        self.masters = [redis.Redis(host=h, port=p, socket_timeout=node_timeout,
                                    socket_connect_timeout=node_timeout, retry=Retry(NoBackoff(), 0),
                                    **self.connection_kwargs())
                        for h, p in self.addrs]
        self.retries = P.retries_of(self.masters[0])
        self.quorum = len(self.masters) // 2 + 1


class Client(P.Client):
    """One lockbench client: its leases are Redlocks under (key, token)."""

    def failed(self, req, exc):
        """A QuorumIsImpossible: more than half the masters answered with an
        error (raise_on_redis_errors=True), so the lock's answer is unknown."""
        errs = list(getattr(exc, "redis_errors", ()) or ())
        definite = bool(errs) and all(P.is_definite(e, self.cfg.mode, self.cfg.retries) for e in errs)
        text = P.err_text(exc) + " (" + "; ".join(P.err_text(e) for e in errs[-3:]) + ")"
        self.reply(req, "error", code="io", definite=definite, text=text)

    def acquire(self, req):
        cfg = self.cfg
        key = req["key"]
        lock = cfg.lock_class(key=key[len(cfg.prefix):], masters=cfg.masters, raise_on_redis_errors=True,
                              auto_release_time=cfg.release_time)
        t0 = time.monotonic()
        try:
            ok = P.acquire_lock(lock, cfg)
        except QuorumIsImpossible as e:
            self.failed(req, e)
            return
        t1 = time.monotonic()
        took_us = int((t1 - t0) * 1e6)
        if not ok:
            self.refused(req, took_us)
            return
        token = lock._uuid
        self.leases[(key, token)] = lock
        self.reply(req, "acquire_ok", token=token, validity_ms=round(lock.validity_ms(t1), 3), took_us=took_us)

    def release(self, req):
        lock = self.held(req, pop=True)
        if lock is None:
            return
        t0 = time.monotonic()
        try:
            lock.release()
        except ReleaseUnlockedLock:
            self.reply(req, "lease_gone")
            return
        except QuorumIsImpossible as e:
            self.failed(req, e)
            return
        self.reply(req, "release_ok", took_us=int((time.monotonic() - t0) * 1e6))

    def extend(self, req):
        lock = self.held(req)
        if lock is None:
            return
        # extend() sets the lease to auto_release_time again: ttl_ms from now
        lock.auto_release_time = float(req["ttl_ms"]) / 1000.0
        t0 = time.monotonic()
        try:
            lock.extend()
        except TooManyExtensions as e:
            # num_extensions (3, the library's default) used up: nothing sent
            self.reply(req, "error", code="too_many_extensions", definite=True, text=P.err_text(e))
            return
        except ExtendUnlockedLock:
            self.leases.pop((req["key"], req["token"]), None)
            self.reply(req, "lease_gone")
            return
        except QuorumIsImpossible as e:
            self.failed(req, e)
            return
        t1 = time.monotonic()
        self.reply(req, "extend_ok", validity_ms=round((lock.auto_release_time - (t1 - t0)) * 1000.0, 3))


def bare_calls(cfg, idx):
    """The bare loop's calls (bare.py): for a key, the Redlock built as
    acquire builds it, its acquire and release."""
    def calls(key):
        lock = cfg.lock_class(key=key[len(cfg.prefix):], masters=cfg.masters, raise_on_redis_errors=True,
                              auto_release_time=cfg.release_time)
        return lambda: P.acquire_lock(lock, cfg), lock.release

    return calls



def init(req):
    cfg = Config(req)
    return cfg, {"library": "pottery", "version": importlib.metadata.version("pottery"),
                 "language": "%s (redis-py %s)" % (P.language(), redis.__version__),
                 "capabilities": {"extend": True, "renewal": False, "fencing": False,
                                  "semaphore": False, "blocking": True, "modes": MODES}}


class OneLine(logging.Filter):
    """pottery logs each redis error a Redlock call meets with its traceback
    (logger.exception); stderr keeps one line each."""

    def filter(self, record):
        if record.exc_info and record.exc_info[1] is not None:
            record.msg = "%s: %s" % (record.getMessage(), P.err_text(record.exc_info[1]))
            record.args = ()
        record.exc_info = record.exc_text = None
        return True


if __name__ == "__main__":
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(NAME + " driver: %(name)s: %(message)s"))
    handler.addFilter(OneLine())
    logging.getLogger("pottery").addHandler(handler)
    logging.getLogger("pottery").setLevel(logging.WARNING)
    P.serve(NAME, init, Client)
