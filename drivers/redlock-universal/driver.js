'use strict';
// lockbench lock driver for redlock-universal (0.6.5 to 0.8.5) with ioredis 5
// (its IoredisAdapter): protocol 1 on stdin/stdout, every client on one
// event loop. Modes: single (createLock: the library's SimpleLock, one
// server) and masters (createRedlock: its RedLock over the N masters).
//
// Two forms (driver.json registers both):
//   node driver.js          redlock-universal: acquire / release / extend
//   node driver.js --using  redlock-universal-using: lock.using() with its
//                           automatic extension; the lease is held inside the
//                           routine until lockbench's release. Each extension
//                           that succeeds is sent as renewed, a failed one
//                           (the AbortSignal) as lease_lost.
//
// The package is an ES module with a CommonJS build beside it ("exports":
// require -> dist/index.cjs), so Node loads it with require().

const P = require('../node-common/protocol.js');
const lib = P.libRequire(__dirname);
const Redis = lib('ioredis');
const {
  createLock,
  createRedlock,
  IoredisAdapter,
  LockAcquisitionError,
  LockReleaseError,
  LockExtensionError,
} = lib('redlock-universal');

const USING = process.argv.includes('--using');
const NAME = USING ? 'redlock-universal-using' : 'redlock-universal';
const MODES = ['single', 'masters'];
const LIB_VERSION = P.libVersion(__dirname, 'redlock-universal');
const IOREDIS_VERSION = P.libVersion(__dirname, 'ioredis');
// RedLock's drift, as its attemptLockAcquisition computes it (the library's
// default clockDriftFactor 0.01): floor(ttl * 0.01) + 2 ms
const DRIFT_FACTOR = 0.01;
// the library takes a retry count, not a deadline: "forever" is the largest
// count its validation (a non-negative integer) accepts
const FOREVER = Number.MAX_SAFE_INTEGER;

let cfg = null;
let servers = null; // ioredis clients, one per server
let bases = null; // one IoredisAdapter per server, shared by all clients
let lockOptions = null; // ttl and retry options of createLock/createRedlock
const clients = new Map();

// retryOptions maps lockbench's retry policy onto the library's two retry
// options, retryAttempts (retries after the first try) and retryDelay (a
// fixed whole number of ms between tries): no jitter, no backoff, no
// deadline. null: kind library, the library's defaults (3 retries, 100 ms
// apart on one server, 200 ms for RedLock).
function retryOptions(lock) {
  const r = lock.retry || { kind: 'library' };
  const mn = Number(r.min_ms) || 0;
  const mx = r.max_ms === undefined ? mn : Number(r.max_ms) || 0;
  let delay;
  switch (r.kind) {
    case 'library':
      return null;
    case 'none':
      return { retryAttempts: 0, retryDelay: 0 };
    case 'spin':
      delay = 0;
      break;
    case 'fixed':
    case 'exp': // no backoff: the first step of lockbench's
      delay = mn;
      break;
    case 'random': // no jitter: the middle of lockbench's range
      delay = (mn + mx) / 2;
      break;
    default:
      throw new P.ProtoError('malformed', `init: unknown retry kind ${JSON.stringify(r.kind)}`);
  }
  delay = Math.round(delay); // the library refuses a fraction
  const t = Number(lock.acquire_timeout_ms) || 0;
  // a setTimeout(0) waits about 1 ms
  const retryAttempts = t > 0 ? Math.floor(t / Math.max(delay, 1)) : FOREVER;
  return { retryAttempts, retryDelay: delay };
}

// tracked is a client's view of a shared adapter: the same adapter (its
// ioredis client and its script cache, by prototype), whose lock commands
// note when each SET was sent and every error they raised, so that a
// request's reply can say which redis errors it met (the library folds
// them into a failed attempt or a false) and how long ago its lease began.
function tracked(base, c) {
  const a = Object.create(base);
  for (const m of ['setNX', 'get', 'delIfMatch', 'extendIfMatch', 'atomicExtend']) {
    const f = base[m];
    a[m] = function trackedCall(...args) {
      const sent = P.nowUs();
      if (m === 'setNX') c.setAt = sent;
      let p;
      try {
        p = f.apply(this, args);
      } catch (e) {
        c.errors.push(e);
        throw e;
      }
      return p.then(
        (v) => {
          // using() on one server extends through atomicExtend alone
          if (m === 'atomicExtend' && USING && v && v.resultCode === 1) {
            renewed(c, args[0], args[1], args[3], sent);
          }
          return v;
        },
        (e) => {
          c.errors.push(e);
          throw e;
        },
      );
    };
  }
  return a;
}

// renewed tells an extension using() made of the lease (key, token). Once
// lockbench has asked to release the lease, the notices of using()'s
// extensions are not sent but counted (see after): its extension chain can
// outlive the routine (README, "What to know").
function renewed(c, key, token, ttl, sentUs) {
  const lease = c.leases.get(P.leaseKey(key, token));
  if (lease) {
    P.send({ type: 'renewed', client: c.idx, token, validity_ms: ttl - (P.nowUs() - sentUs) / 1000 });
    return;
  }
  const late = c.releasing.get(token);
  if (late) late.after.renewed++;
  else P.log(NAME, `client ${c.idx}: using() extended ${key} (token ${token}) after its release was answered`);
}

// after logs what using() did to a lease after lockbench asked to release
// it: extensions, and a failed one (its AbortSignal).
function after(c, lease) {
  const a = lease.after;
  if (!a.renewed && !a.lost) return;
  P.log(NAME, `client ${c.idx}: using() went on after the routine returned for ${lease.handle.key} (token ${lease.handle.value}): ${a.renewed} extension(s)${a.lost ? `, then ${a.lost}` : ''} (not sent)`);
}

function clientState(idx) {
  let c = clients.get(idx);
  if (c) return c;
  // releasing: using() leases (by token) between lockbench's release and
  // using()'s own
  c = { idx, errors: [], setAt: 0, locks: new Map(), leases: new Map(), releasing: new Map() };
  c.adapters = bases.map((b) => tracked(b, c));
  clients.set(idx, c);
  return c;
}

// lockOf is the client's lock object of a key, made once and kept, as an
// application keeps one per resource: the library binds a lock to its key,
// and a SimpleLock keeps its circuit breaker and its health check's clock
// (a PING at most every 30 s, before an acquire) in the object.
function lockOf(c, key) {
  let lock = c.locks.get(key);
  if (lock) return lock;
  lock =
    cfg.mode === 'masters'
      ? createRedlock({ adapters: c.adapters, key, ...lockOptions })
      : createLock({ adapter: c.adapters[0], key, ...lockOptions });
  if (USING) watchUsing(c, lock);
  c.locks.set(key, lock);
  return lock;
}

// watchUsing wraps the lock object's own acquire, release and extend, which
// its using() calls through `this`: acquire hands the routine's handle (the
// routine gets only the AbortSignal), release keeps what using()'s final
// release found (using() itself only logs it), and extend (RedLock's
// extensions; a SimpleLock's go through the adapter's atomicExtend) tells
// each success as renewed.
function watchUsing(c, lock) {
  const acquire = lock.acquire.bind(lock);
  const release = lock.release.bind(lock);
  const extend = lock.extend.bind(lock);
  lock.acquire = async () => {
    const handle = await acquire();
    lock.lastHandle = handle;
    return handle;
  };
  lock.release = async (handle) => {
    const lease = c.releasing.get(handle.value);
    try {
      const ok = await release(handle);
      if (lease) lease.released = { ok };
      return ok;
    } catch (e) {
      if (lease) lease.released = { error: e };
      throw e;
    }
  };
  lock.extend = async (handle, ttl) => {
    const sent = P.nowUs();
    const ok = await extend(handle, ttl);
    if (ok) renewed(c, handle.key, handle.value, ttl, sent);
    return ok;
  };
}

// notSent: ioredis refused to write the command (no offline queue), or the
// script's SCRIPT LOAD failed, so the lock's command never ran. The adapter
// wraps ioredis's error (in its message, or as cause).
function notSent(e) {
  for (let x = e; x; x = x.cause) {
    if (P.notSent(x)) return true;
    if (/^Failed to load script /.test(String(x.message))) return true;
  }
  return false;
}

function chainText(e) {
  const parts = [];
  for (let x = e; x && parts.length < 4; x = x.cause) parts.push(P.errText(x));
  return parts.join(' <- ');
}

// failure: how the redis errors a request met (errors) are reported. None:
// the lock's own answer (held, not ours). In single mode any: an error. With
// N masters: an error only when fewer than a quorum of them are connected
// (else the failure is the lock's, not the network's). As the other Redlock
// drivers (node-common's failure), with the adapter's wrapped errors.
function failure(errors) {
  if (errors.length === 0) return null;
  if (cfg.mode === 'masters') {
    const ready = servers.filter((s) => s.status === 'ready').length;
    if (ready >= Math.floor(servers.length / 2) + 1) return null;
  }
  return { definite: errors.every(notSent), text: errors.slice(-3).map(chainText).join('; ') };
}

// validity is the lease's time left, as the driver reckons it from when the
// acquire's last SET was sent (all N of a RedLock attempt are sent in one
// turn of the loop), less RedLock's drift with N masters.
function validity(c, lock) {
  const ttl = lock.getConfig().ttl;
  const drift = cfg.mode === 'masters' ? Math.floor(ttl * DRIFT_FACTOR) + 2 : 0;
  return ttl - drift - (P.nowUs() - c.setAt) / 1000;
}

function acquireFailed(req, c, e, t0) {
  const took = P.nowUs() - t0;
  if (!(e instanceof LockAcquisitionError)) throw e;
  // a SimpleLock's open circuit breaker refuses at once (attempts 0): no
  // command was sent
  if (e.attempts === 0) {
    return P.reply(req, 'error', { code: 'circuit_open', definite: true, text: chainText(e) });
  }
  const f = failure(c.errors);
  if (f) return P.reply(req, 'error', { code: 'io', definite: f.definite, text: `${chainText(e)} (${f.text})` });
  const reason = lockOptions.retryAttempts === 0 ? 'busy' : 'timeout';
  return P.reply(req, 'not_acquired', { reason, took_us: took });
}

// released answers a release from what the library's release returned:
// true -> release_ok; false -> lease_gone, or an error when redis errors
// made it false; a LockReleaseError (a SimpleLock's redis error) -> error.
function released(req, c, result, t0) {
  if (result.error) {
    if (!(result.error instanceof LockReleaseError)) throw result.error;
    return P.reply(req, 'error', { code: 'io', definite: notSent(result.error), text: chainText(result.error) });
  }
  if (result.ok) return P.reply(req, 'release_ok', { took_us: P.nowUs() - t0 });
  const f = failure(c.errors);
  if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: f.text });
  return P.reply(req, 'lease_gone', {});
}

async function acquire(req) {
  const c = clientState(req.client);
  const lock = lockOf(c, req.key);
  c.errors.length = 0;
  const t0 = P.nowUs();
  let handle;
  try {
    handle = await lock.acquire();
  } catch (e) {
    return acquireFailed(req, c, e, t0);
  }
  const took = P.nowUs() - t0;
  c.leases.set(P.leaseKey(req.key, handle.value), { lock, handle });
  return P.reply(req, 'acquire_ok', { token: handle.value, validity_ms: validity(c, lock), took_us: took });
}

// using(): acquire_ok is sent from inside the routine, which then waits for
// lockbench's release; using() extends the lock by itself meanwhile, and
// releases it when the routine returns.
function acquireUsing(req) {
  const c = clientState(req.client);
  const lock = lockOf(c, req.key);
  c.errors.length = 0;
  const t0 = P.nowUs();
  let lease = null;
  const done = lock.using((signal) => {
    const handle = lock.lastHandle;
    const token = handle.value;
    lease = { lock, handle, releaseReq: null, t0: 0, released: null, after: { renewed: 0, lost: '' } };
    const held = new Promise((resolve) => {
      lease.finish = resolve;
    });
    c.leases.set(P.leaseKey(req.key, token), lease);
    signal.addEventListener('abort', () => {
      const text = `extension failed: ${signal.error ? signal.error.message : 'aborted'}`;
      if (lease.releaseReq) {
        lease.after.lost = text;
        // after using() has answered the release, said here alone
        if (!c.releasing.has(token)) P.log(NAME, `client ${c.idx}: using() of ${lease.handle.key} (token ${token}) after its release: ${text} (not sent)`);
        return;
      }
      P.send({ type: 'lease_lost', client: req.client, token, text });
    });
    P.reply(req, 'acquire_ok', { token, validity_ms: validity(c, lock), took_us: P.nowUs() - t0 });
    return held;
  });
  done.then(
    () => {
      if (lease && lease.releaseReq) {
        c.releasing.delete(lease.handle.value);
        released(lease.releaseReq, c, lease.released || { ok: false }, lease.t0);
        after(c, lease);
      }
    },
    (e) => {
      if (!lease) return acquireFailed(req, c, e, t0);
      // using() catches its release's errors; this is the routine's own
      P.log(NAME, `using() rejected after acquire: ${chainText(e)}`);
      return undefined;
    },
  );
}

async function release(req) {
  const c = clientState(req.client);
  const lease = P.held(c, req, true);
  if (!lease) return undefined;
  c.errors.length = 0;
  if (USING) {
    // the lease left c.leases: using()'s release finds it here
    c.releasing.set(lease.handle.value, lease);
    lease.releaseReq = req;
    lease.t0 = P.nowUs();
    lease.finish();
    return undefined;
  }
  const t0 = P.nowUs();
  let result;
  try {
    result = { ok: await lease.lock.release(lease.handle) };
  } catch (e) {
    result = { error: e };
  }
  return released(req, c, result, t0);
}

async function extend(req) {
  if (USING) {
    return P.reply(req, 'error', {
      code: 'unsupported',
      definite: true,
      text: 'redlock-universal-using extends by itself inside using(); use redlock-universal for manual extend',
    });
  }
  const c = clientState(req.client);
  const lease = P.held(c, req, false);
  if (!lease) return undefined;
  c.errors.length = 0;
  const ttl = Math.max(1, Math.round(req.ttl_ms)); // the library refuses a fraction
  const t0 = P.nowUs();
  let ok;
  try {
    ok = await lease.lock.extend(lease.handle, ttl);
  } catch (e) {
    if (!(e instanceof LockExtensionError)) throw e;
    return P.reply(req, 'error', { code: 'io', definite: notSent(e), text: chainText(e) });
  }
  if (ok) return P.reply(req, 'extend_ok', { validity_ms: ttl - (P.nowUs() - t0) / 1000 });
  const f = failure(c.errors);
  if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: f.text });
  c.leases.delete(P.leaseKey(req.key, req.token));
  return P.reply(req, 'lease_gone', {});
}

P.serve({
  name: NAME,
  async init(req) {
    // ttl_ms 0 is the library's own default (30 s): node-common's parseInit
    // refuses it (the Redlock libraries it was written for have none), so
    // it parses the rest with a placeholder
    const lockReq = req.lock && typeof req.lock === 'object' ? req.lock : null;
    const libraryTTL = lockReq !== null && !(Number(lockReq.ttl_ms) > 0);
    cfg = P.parseInit(libraryTTL ? { ...req, lock: { ...lockReq, ttl_ms: 1 } } : req, { modes: MODES });
    if (cfg.renew && !USING) {
      throw new P.ProtoError('unsupported', 'redlock-universal is the manual form (acquire/release/extend); its automatic extension is the registered name redlock-universal-using');
    }
    if (USING && !cfg.renew) {
      P.log(NAME, 'renew:false asked of the using() form: it extends the lock anyway (that is the form)');
    }
    lockOptions = { ...(retryOptions(req.lock) || {}) };
    if (!libraryTTL) lockOptions.ttl = cfg.ttl;
    servers = await P.connect(Redis, cfg, NAME);
    bases = servers.map((s) => new IoredisAdapter(s));
    return {
      cfg,
      reply: {
        library: 'redlock-universal',
        version: LIB_VERSION,
        language: `node ${process.versions.node} (ioredis ${IOREDIS_VERSION})`,
        capabilities: {
          extend: !USING,
          renewal: USING,
          fencing: false,
          semaphore: false,
          blocking: true,
          modes: MODES,
        },
      },
    };
  },
  // the bare loop's cycle (node-common/bare.js), the plain form's calls on
  // the shared adapters themselves (not the driver's tracked views): one
  // lock object per key, kept, as lockOf makes it; acquire, then release
  bare() {
    if (USING) throw new P.ProtoError('unsupported', 'redlock-universal-using has no bare loop (redlock-universal has)');
    let lock = null;
    return {
      acquire(key) {
        lock = lock || (cfg.mode === 'masters' ? createRedlock({ adapters: bases, key, ...lockOptions }) : createLock({ adapter: bases[0], key, ...lockOptions }));
        return lock.acquire();
      },
      async release(handle) {
        if (!(await lock.release(handle))) throw new Error('release found the lock gone');
      },
    };
  },
  handle(req) {
    switch (req.type) {
      case 'acquire':
        return USING ? acquireUsing(req) : acquire(req);
      case 'release':
        return release(req);
      case 'extend':
        return extend(req);
      default:
        return undefined;
    }
  },
});
