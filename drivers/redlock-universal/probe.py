#!/usr/bin/env python3
"""Two probes of this driver by hand, for the figures in README.md.

  python3 probe.py extensions MODE TTL_MS HOLD_S   # MODE single or masters (3)
  python3 probe.py outage FORM RETRY [WAIT_S]      # FORM plain or using; RETRY none or fixed

extensions: one using() lease held HOLD_S seconds with a TTL of TTL_MS; counts
the renewed notices while held, every message after the release was sent, and
the EVALSHAs the first server got (MONITOR).

outage: acquire, stop the redis-server, release and six acquires, start it
again on the same port, two acquires of client 0 and one of client 1, and
(WAIT_S given) one more of client 0 WAIT_S seconds later; prints each reply.
LOCKBENCH_DRIVER_ENV runs another installed version, as lockbench does.

Starts its own redis-server(s) on free loopback ports and kills them, and the
driver, at the end. Standard library only; needs redis-server and redis-cli.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def redis(port):
    return subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)


class Driver:
    def __init__(self, using):
        self.p = subprocess.Popen(["node", "driver.js"] + (["--using"] if using else []), cwd=HERE,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.msgs = []  # (monotonic time, message)
        self.cv = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            with self.cv:
                self.msgs.append((time.monotonic(), json.loads(line)))
                self.cv.notify_all()

    def send(self, m):
        m = dict(m, id=self.next_id)
        self.next_id += 1
        self.p.stdin.write(json.dumps(m) + "\n")
        self.p.stdin.flush()
        return m["id"]

    def call(self, m, timeout=10):
        t0 = time.monotonic()
        i = self.send(m)
        with self.cv:
            self.cv.wait_for(lambda: any(x.get("in_reply_to") == i for _, x in self.msgs), timeout)
            r = next((x for _, x in self.msgs if x.get("in_reply_to") == i), None)
        shown = {k: v for k, v in (r or {}).items() if k not in ("in_reply_to", "client")}
        print("%-8s %s -> %s (%.0f ms)" % (m["type"], "c%s" % m.get("client", "-"), json.dumps(shown)[:200],
                                         (time.monotonic() - t0) * 1000), flush=True)
        return r

    def close(self):
        self.p.stdin.close()
        self.p.wait(3)


def init(mode, ports, ttl, retry, renew):
    return {"type": "init", "protocol": 1, "prefix": "lb:probe:", "clients": 2,
            "redis": {"mode": mode, "addrs": ["127.0.0.1:%d" % p for p in ports], "master_name": "", "username": ""},
            "lock": {"ttl_ms": ttl, "retry": retry, "acquire_timeout_ms": 200, "limit": 1, "renew": renew}}


NONE = {"kind": "none", "min_ms": 0, "max_ms": 0}


def extensions(mode, ttl, hold):
    ports = [free_port() for _ in range(3 if mode == "masters" else 1)]
    servers = [redis(p) for p in ports]
    time.sleep(0.3)
    mon = subprocess.Popen(["redis-cli", "-p", str(ports[0]), "monitor"], stdout=subprocess.PIPE, text=True)
    evalsha = [0]
    threading.Thread(target=lambda: [evalsha.__setitem__(0, evalsha[0] + ("evalsha" in l.lower())) for l in mon.stdout],
                     daemon=True).start()
    d = Driver(using=True)
    try:
        d.call(init(mode, ports, ttl, NONE, True))
        t0 = time.monotonic()
        a = d.call({"type": "acquire", "client": 0, "key": "lb:probe:k"})
        time.sleep(hold)
        trel = time.monotonic()
        d.call({"type": "release", "client": 0, "key": "lb:probe:k", "token": a["token"]})
        time.sleep(1.0 + ttl / 1000)
        held = [m for t, m in d.msgs if t0 <= t < trel and m["type"] == "renewed"]
        other = [(round(t - t0, 4), m["type"], m.get("text", "")[:90]) for t, m in d.msgs
                 if t0 <= t < trel and m["type"] not in ("renewed",)]
        late = [(round(t - trel, 4), m["type"], m.get("text", "")[:90]) for t, m in d.msgs if t >= trel]
        print("mode %s, ttl %g ms, held %.2f s: %d renewed notices while held (%.0f a second)"
              % (mode, ttl, trel - t0, len(held), len(held) / (trel - t0)))
        print("other messages while held (s after the acquire was sent):", other)
        print("messages after the release was sent (s after):", late)
        print("EVALSHA commands on the first server: %d" % evalsha[0])
    finally:
        d.close()
        mon.kill()
        for s in servers:
            s.kill()


def outage(form, retry, wait):
    port = free_port()
    srv = redis(port)
    time.sleep(0.3)
    kinds = {"none": NONE, "fixed": {"kind": "fixed", "min_ms": 50, "max_ms": 50}}
    d = Driver(using=form == "using")
    try:
        d.call(init("single", [port], 5000, kinds[retry], form == "using"))
        a = d.call({"type": "acquire", "client": 0, "key": "lb:probe:k"})
        srv.kill()
        srv.wait()
        time.sleep(0.3)
        print("-- redis-server stopped")
        d.call({"type": "release", "client": 0, "key": "lb:probe:k", "token": a["token"]})
        for _ in range(6):
            d.call({"type": "acquire", "client": 0, "key": "lb:probe:k"})
        srv = redis(port)
        time.sleep(1.5)
        print("-- redis-server started again")
        for c in (0, 0, 1):
            d.call({"type": "acquire", "client": c, "key": "lb:probe:k"})
        if wait:
            time.sleep(wait)
            print("-- %g s later" % wait)
            d.call({"type": "acquire", "client": 0, "key": "lb:probe:k"})
    finally:
        d.close()
        srv.kill()


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "extensions":
        extensions(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "outage":
        outage(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) == 5 else 0)
    else:
        sys.exit(__doc__)
