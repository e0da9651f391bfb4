#!/usr/bin/env python3
"""Drives one lock driver through protocol 1 by hand (see drivers/smoke.sh,
which starts the redis-servers this talks to and kills them afterwards).

usage: smoke.py FOLDER NAME MODE ADDRS MASTER_NAME PIDFILE [DATA_ADDRS]
  ADDRS       comma-separated host:port the driver is given (init's redis.addrs)
  DATA_ADDRS  comma-separated host:port of the servers holding the keys (for
              the checks' own GET/PTTL/SCAN; defaults to ADDRS)
Prints PASS/FAIL per check; exit status 1 when any check failed.
Python 3 standard library only.
"""

import json
import os
import queue
import random
import socket
import subprocess
import sys
import threading
import time


# --- a tiny RESP client for the checks' own look at the servers ----------

class Resp:
    def __init__(self, addr):
        host, _, port = addr.rpartition(":")
        self.s = socket.create_connection((host, int(port)), timeout=5)
        self.f = self.s.makefile("rb")

    def cmd(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return self.read()

    def read(self):
        line = self.f.readline()
        if not line:
            raise ConnectionError("closed")
        t, rest = line[:1], line[1:-2]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            return RespError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            return data.decode()
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ValueError("bad reply %r" % line)

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


class RespError(str):
    pass


class Servers:
    """The servers holding the keys: GET/PTTL on the one that owns a key
    (cluster: the one not answering MOVED); in masters mode, on each."""

    def __init__(self, addrs, mode):
        self.mode = mode
        self.conns = [Resp(a) for a in addrs]

    def _owner(self, key):
        for c in self.conns:
            v = c.cmd("GET", key)
            if isinstance(v, RespError) and v.startswith("MOVED"):
                continue
            return c
        return self.conns[0]

    def get(self, key):
        """the value on the owner (masters: list of values per master)"""
        if self.mode == "masters":
            return [c.cmd("GET", key) for c in self.conns]
        return self._owner(key).cmd("GET", key)

    def pttl(self, key):
        if self.mode == "masters":
            return [c.cmd("PTTL", key) for c in self.conns]
        return self._owner(key).cmd("PTTL", key)

    def delete(self, key):
        if self.mode == "masters":
            return [c.cmd("DEL", key) for c in self.conns]
        return self._owner(key).cmd("DEL", key)

    def keys(self):
        out = []
        for c in self.conns:
            cur = "0"
            while True:
                r = c.cmd("SCAN", cur, "COUNT", 1000)
                cur, ks = r[0], r[1]
                out.extend(ks)
                if cur == "0":
                    break
        return out


# --- the driver process --------------------------------------------------

class Driver:
    def __init__(self, folder, name, pidfile):
        with open(os.path.join(folder, "driver.json")) as f:
            entries = json.load(f)
        ent = [e for e in entries if e.get("name") == name]
        if not ent:
            raise SystemExit("no entry %r in %s/driver.json" % (name, folder))
        self.entry = ent[0]
        cmd = list(self.entry["command"])
        self.stderr = open(os.path.join(os.path.dirname(pidfile), "driver-%s-%d.stderr" % (name, os.getpid())), "wb")
        self.p = subprocess.Popen(cmd, cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.stderr)
        with open(pidfile, "a") as f:
            f.write("%d\n" % self.p.pid)
        self.replies = {}
        self.cond = threading.Condition()
        self.unasked = []
        self.bad_lines = []
        self.eof = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 1

    def _read(self):
        for line in self.p.stdout:
            try:
                m = json.loads(line)
            except ValueError:
                with self.cond:
                    self.bad_lines.append(line)
                continue
            with self.cond:
                if m.get("in_reply_to") is None and m.get("type") in ("lease_lost", "renewed"):
                    self.unasked.append(m)
                else:
                    self.replies.setdefault(m.get("in_reply_to"), []).append(m)
                self.cond.notify_all()
        self.eof.set()
        with self.cond:
            self.cond.notify_all()

    def send_raw(self, line):
        self.p.stdin.write(line if isinstance(line, bytes) else line.encode())
        self.p.stdin.flush()

    def send(self, msg):
        if "id" not in msg:
            msg["id"] = self.next_id
            self.next_id += 1
        self.send_raw(json.dumps(msg) + "\n")
        return msg["id"]

    def wait(self, rid, timeout=10.0):
        end = time.monotonic() + timeout
        with self.cond:
            while not self.replies.get(rid):
                left = end - time.monotonic()
                if left <= 0 or self.eof.is_set():
                    return None
                self.cond.wait(left)
            return self.replies[rid].pop(0)

    def call(self, msg, timeout=10.0):
        return self.wait(self.send(msg), timeout)

    def wait_unasked(self, typ, timeout):
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.unasked:
                    if m.get("type") == typ:
                        return m
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def close_stdin_and_wait(self, timeout):
        t0 = time.monotonic()
        self.p.stdin.close()
        try:
            self.p.wait(timeout)
            return time.monotonic() - t0
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def stderr_tail(self):
        try:
            with open(self.stderr.name, "rb") as f:
                return f.read()[-2000:].decode(errors="replace")
        except OSError:
            return ""


# --- the checks ------------------------------------------------------------

results = []


def check(name, ok, detail=""):
    results.append((name, ok))
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail and not ok else ""), flush=True)
    return ok


def init_msg(mode, addrs, master_name, prefix, **lock):
    lk = {"ttl_ms": 5000, "retry": {"kind": "fixed", "min_ms": 10, "max_ms": 10},
          "acquire_timeout_ms": 400, "limit": 1, "renew": False}
    lk.update(lock)
    return {"type": "init", "id": 0, "protocol": 1,
            "redis": {"mode": mode, "addrs": addrs, "master_name": master_name, "username": ""},
            "prefix": prefix, "clients": 200, "lock": lk}


def held_by(srv, key, token):
    v = srv.get(key)
    if isinstance(v, list):  # masters: a majority holds it
        return sum(1 for x in v if x == token) > len(v) // 2
    return v == token


def absent(srv, key):
    v = srv.get(key)
    if isinstance(v, list):
        return all(x is None for x in v)
    return v is None


def main():
    folder, name, mode, addrs, master_name, pidfile = sys.argv[1:7]
    addrs = addrs.split(",")
    data_addrs = sys.argv[7].split(",") if len(sys.argv) > 7 and sys.argv[7] else addrs
    srv = Servers(data_addrs, mode)
    prefix = "lockbench:smoke%06x:" % random.randrange(1 << 24)
    k = lambda s: prefix + s

    d = Driver(folder, name, pidfile)
    renewing = name.endswith("-using")
    try:
        r = d.call(init_msg(mode, addrs, master_name, prefix, renew=renewing), 15)
        if not check("init -> init_ok", r is not None and r.get("type") == "init_ok", "got %r" % (r,)):
            print(d.stderr_tail())
            return
        caps = r.get("capabilities", {})
        print("     library=%s version=%s language=%s capabilities=%s" % (
            r.get("library"), r.get("version"), r.get("language"), json.dumps(caps)), flush=True)

        # round trip
        r = d.call({"type": "acquire", "client": 0, "key": k("a")})
        ok = r is not None and r.get("type") == "acquire_ok" and isinstance(r.get("token"), str)
        tok = r.get("token") if ok else None
        ok = ok and held_by(srv, k("a"), tok)
        r2 = d.call({"type": "release", "client": 0, "key": k("a"), "token": tok}) if tok else None
        ok = ok and r2 is not None and r2.get("type") == "release_ok" and absent(srv, k("a"))
        check("acquire/release round trip (key set to the token, then gone)", ok, "acquire %r release %r" % (r, r2))
        if r and r.get("type") == "acquire_ok":
            print("     acquire_ok: validity_ms=%s took_us=%s" % (r.get("validity_ms"), r.get("took_us")), flush=True)

        # mutual exclusion + timeout
        r = d.call({"type": "acquire", "client": 0, "key": k("b")})
        tok0 = r.get("token") if r and r.get("type") == "acquire_ok" else None
        t0 = time.monotonic()
        r1 = d.call({"type": "acquire", "client": 1, "key": k("b")})
        waited = time.monotonic() - t0
        check("two clients on one key exclude each other", tok0 is not None and r1 is not None
              and r1.get("type") == "not_acquired" and r1.get("reason") in ("busy", "timeout"),
              "holder %r, second %r" % (r, r1))
        check("acquire that waits acquire_timeout_ms (400) reports not_acquired timeout",
              r1 is not None and r1.get("type") == "not_acquired" and r1.get("reason") == "timeout"
              and 0.3 <= waited <= 3.0, "%r after %.3fs" % (r1, waited))
        print("     waited %.3fs (took_us=%s)" % (waited, r1 and r1.get("took_us")), flush=True)

        # foreign tokens
        r = d.call({"type": "release", "client": 1, "key": k("b"), "token": "not-a-real-token"})
        ok = r is not None and r.get("type") == "lease_gone" and held_by(srv, k("b"), tok0)
        r = d.call({"type": "release", "client": 1, "key": k("b"), "token": tok0 or "x"})
        ok = ok and r is not None and r.get("type") == "lease_gone" and held_by(srv, k("b"), tok0)
        check("release with a foreign token -> lease_gone, holder's key still there", ok, "%r" % (r,))

        # extend
        if caps.get("extend"):
            r = d.call({"type": "extend", "client": 0, "key": k("b"), "token": tok0, "ttl_ms": 9000})
            p = srv.pttl(k("b"))
            p = min(p) if isinstance(p, list) else p
            check("extend -> extend_ok, PTTL raised past the first TTL", r is not None and r.get("type") == "extend_ok"
                  and isinstance(p, int) and 5000 < p <= 9000, "%r pttl=%r" % (r, p))
            r = d.call({"type": "extend", "client": 1, "key": k("b"), "token": "not-a-real-token", "ttl_ms": 9000})
            check("extend with a foreign token -> lease_gone", r is not None and r.get("type") == "lease_gone", "%r" % (r,))
        else:
            r = d.call({"type": "extend", "client": 0, "key": k("b"), "token": tok0, "ttl_ms": 9000})
            check("extend -> error unsupported (no extend capability)", r is not None and r.get("type") == "error"
                  and r.get("code") == "unsupported" and r.get("definite") is True, "%r" % (r,))
        r = d.call({"type": "release", "client": 0, "key": k("b"), "token": tok0})
        check("holder releases after the others tried", r is not None and r.get("type") == "release_ok"
              and absent(srv, k("b")), "%r" % (r,))

        # a lease that expired (not renewing forms): release -> lease_gone
        if not renewing:
            pass

        # 64 in flight
        ids = {}
        t0 = time.monotonic()
        for i in range(64):
            ids[d.send({"type": "acquire", "client": 100 + i, "key": k("p%d" % i)})] = i
        got = {}
        for rid, i in ids.items():
            r = d.wait(rid, 20)
            if r is not None:
                got[i] = r
        ok = len(got) == 64 and all(r.get("type") == "acquire_ok" and r.get("client") == 100 + i for i, r in got.items())
        check("64 acquires in flight for 64 clients on 64 keys -> 64 acquire_ok", ok,
              "%d replies, types %r" % (len(got), sorted({r.get("type") for r in got.values()})))
        print("     64 acquires answered in %.3fs" % (time.monotonic() - t0), flush=True)
        rel = {}
        for i, r in got.items():
            if r.get("type") == "acquire_ok":
                rel[d.send({"type": "release", "client": 100 + i, "key": k("p%d" % i), "token": r["token"]})] = i
        ok = all((d.wait(rid, 20) or {}).get("type") == "release_ok" for rid in rel) and len(rel) == 64
        check("64 releases in flight -> 64 release_ok", ok)

        # malformed lines
        d.send_raw(b"this is not json\n")
        r = d.wait(None, 5)
        ok = r is not None and r.get("type") == "error" and r.get("code") == "malformed" and r.get("definite") is True
        r2 = d.call({"type": "frobnicate", "client": 0})
        ok = ok and r2 is not None and r2.get("type") == "error" and r2.get("code") == "malformed"
        r3 = d.call({"type": "acquire", "client": 0})
        ok = ok and r3 is not None and r3.get("type") == "error" and r3.get("code") == "malformed"
        r4 = d.call({"type": "acquire", "client": 0, "key": k("c")})
        ok = ok and r4 is not None and r4.get("type") == "acquire_ok"
        check("malformed lines -> error malformed, and the driver keeps serving", ok, "%r %r %r %r" % (r, r2, r3, r4))

        # prefix
        outside = [x for x in srv.keys() if not x.startswith(prefix)]
        check("every key on the servers starts with the prefix", not outside, "%r" % outside[:5])

        # stdin closed
        el = d.close_stdin_and_wait(2.0)
        check("closing stdin -> exit within 2 s", el is not None, "still running after 2 s")
        if el is not None:
            print("     exited in %.3fs, status %s" % (el, d.p.returncode), flush=True)
    finally:
        d.kill()

    # retry kind none: busy, not timeout
    d = Driver(folder, name, pidfile)
    try:
        r = d.call(init_msg(mode, addrs, master_name, prefix, renew=renewing,
                            retry={"kind": "none", "min_ms": 0, "max_ms": 0}), 15)
        a = d.call({"type": "acquire", "client": 0, "key": k("n")})
        t0 = time.monotonic()
        b = d.call({"type": "acquire", "client": 1, "key": k("n")})
        waited = time.monotonic() - t0
        check("retry kind none: second acquire -> not_acquired busy at once", r and r.get("type") == "init_ok"
              and a and a.get("type") == "acquire_ok" and b and b.get("type") == "not_acquired"
              and b.get("reason") == "busy" and waited < 0.3, "%r %r %r %.3fs" % (r, a, b, waited))
        if a and a.get("type") == "acquire_ok":
            d.call({"type": "release", "client": 0, "key": k("n"), "token": a["token"]})
    finally:
        d.kill()

    # renewal: the lease outlives its TTL while held; a failed renewal is reported
    d = Driver(folder, name, pidfile)
    try:
        r = d.call(init_msg(mode, addrs, master_name, prefix, renew=True, ttl_ms=700), 15)
        if r and r.get("type") == "init_ok" and r.get("capabilities", {}).get("renewal"):
            a = d.call({"type": "acquire", "client": 0, "key": k("r")})
            tok = a.get("token") if a and a.get("type") == "acquire_ok" else None
            time.sleep(1.6)
            ok = tok is not None and held_by(srv, k("r"), tok)
            b = d.call({"type": "release", "client": 0, "key": k("r"), "token": tok or "x"})
            check("renew: lease held 1.6 s past a 700 ms TTL, then release_ok", ok and b and b.get("type") == "release_ok"
                  and absent(srv, k("r")), "%r %r" % (a, b))
            a = d.call({"type": "acquire", "client": 0, "key": k("r2")})
            tok = a.get("token") if a and a.get("type") == "acquire_ok" else None
            srv.delete(k("r2"))  # the lease is taken away under the holder
            t0 = time.monotonic()
            m = d.wait_unasked("lease_lost", 3.0)
            check("renew: a failed renewal -> unasked lease_lost", tok is not None and m is not None
                  and m.get("client") == 0 and m.get("token") == tok, "%r %r" % (a, m))
            if m:
                print("     lease_lost after %.3fs: %s" % (time.monotonic() - t0, m.get("text")), flush=True)
            b = d.call({"type": "release", "client": 0, "key": k("r2"), "token": tok or "x"})
            check("renew: release after lease_lost -> lease_gone", b is not None and b.get("type") == "lease_gone", "%r" % (b,))
        else:
            check("renew:true without the renewal capability -> error unsupported", r is not None
                  and r.get("type") == "error" and r.get("code") == "unsupported" and r.get("definite") is True, "%r" % (r,))
    finally:
        d.kill()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        check("harness", False, "%s: %s" % (type(e).__name__, e))
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
