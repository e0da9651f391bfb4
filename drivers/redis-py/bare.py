#!/usr/bin/python3
"""redis-py's bare loop (docs/drivers.md, "The bare loop"): the driver's init
and its Lock, built as the driver builds it (one shared redis client, a
TimedLock, thread_local=False), acquire() then release() in a plain loop of
one thread per client, no protocol in the way. It takes the driver's
arguments (the form)."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver as D  # noqa: E402

P = D.P


def cycle_of(cfg, idx):
    client = cfg.shared_client()

    def cycle(key):
        lock = client.lock(key, timeout=cfg.timeout, sleep=cfg.sleep, blocking=cfg.blocking,
                           blocking_timeout=cfg.blocking_timeout, lock_class=D.TimedLock, thread_local=False)
        t0 = time.monotonic()
        if not lock.acquire():
            raise RuntimeError("acquire refused on a lock name of the client's own")
        took = time.monotonic() - t0
        lock.release()
        return took

    return cycle


if __name__ == "__main__":
    P.bare(D.NAME, D.init, cycle_of)
