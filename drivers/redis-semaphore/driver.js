'use strict';
// lockbench lock driver for redis-semaphore 5.x (npm) with ioredis 5:
// protocol 1 on stdin/stdout, every client on one event loop, one ioredis
// client per server shared by all clients.
//
// Three forms (driver.json registers each):
//   node driver.js               redis-semaphore: Mutex, one server
//   node driver.js --semaphore   redis-semaphore-semaphore: Semaphore(limit)
//   node driver.js --redlock     redis-semaphore-redlock: RedlockMutex over
//                                the masters (one server: a Redlock of one)
//
// One library object per acquire, as the library is used (each Mutex has its
// own random identifier, lockbench's token). The library refreshes a held
// lock by itself every refreshInterval ms (its default, 0.8 x lockTimeout);
// each refresh that succeeds is told as renewed, one that fails (onLockLost)
// as lease_lost. The driver watches the library through what it hands it:
// the instance's _refresh (wrapped to see each refresh's answer) and a
// per-lock view of the ioredis client (to time the commands and see the
// redis errors the Redlock forms swallow); it sends nothing of its own.

const P = require('../node-common/protocol.js');
const lib = P.libRequire(__dirname);
const Redis = lib('ioredis');
const RS = lib('redis-semaphore');

const FORM = process.argv.includes('--semaphore') ? 'semaphore' : process.argv.includes('--redlock') ? 'redlock' : 'mutex';
const NAME = { mutex: 'redis-semaphore', semaphore: 'redis-semaphore-semaphore', redlock: 'redis-semaphore-redlock' }[FORM];
const MODES = FORM === 'redlock' ? ['single', 'masters'] : ['single'];
const LIB_VERSION = P.libVersion(__dirname, 'redis-semaphore');
const IOREDIS_VERSION = P.libVersion(__dirname, 'ioredis');
// the library's defaults (lib/misc.js defaultTimeoutOptions, all 5.x)
const DEFAULT_LOCK_TIMEOUT = 10000;

let cfg = null;
let servers = null;
let options = null; // the constructor's TimeoutOptions, less onLockLost
let limit = 1;
const clients = new Map();

// A refresh that meets a redis error rejects inside the library's own
// interval callback, which does not catch it (Lock._processRefresh: try /
// finally): an unhandled rejection, which would end Node 20. The library
// tries again at the next interval; the driver logs it and serves on.
process.on('unhandledRejection', (e) => P.log(NAME, `unhandled rejection (a refresh that failed on redis?): ${P.errText(e)}`));

function clientState(idx) {
  let c = clients.get(idx);
  if (!c) {
    c = { idx, leases: new Map() };
    clients.set(idx, c);
  }
  return c;
}

// view is what the library is given instead of the shared ioredis client:
// the commands it uses (lib/types.d.ts RedisClient: eval, evalsha, get,
// set, zrem), each sent as is on the shared client, timed (w.sent: when the
// latest was sent) and its errors kept (w.errors), NOSCRIPT excepted (the
// library answers it with EVAL).
//
// The view's prototype is the client itself, so that `instanceof Redis`
// holds (5.5.x and before refuse anything else: '"client" must be instance
// of ioredis client'); what it inherits it only reads (options).
//
// While the lock's release() runs (w.releasing), the answers of its release
// commands are kept (w.deleted): the library's release() resolves the same
// whether its compare-and-delete deleted the key or found it gone, and
// drops the answer; the driver reads it to tell lease_gone.
function view(redis, w) {
  const v = Object.create(redis);
  for (const m of ['eval', 'evalsha', 'get', 'set', 'zrem']) {
    v[m] = (...args) => {
      w.sent = Date.now();
      const releasing = w.releasing && isRelease(m, args);
      return redis[m](...args).then(
        (r) => {
          if (releasing) w.deleted.push(+r);
          return r;
        },
        (e) => {
          if (!/NOSCRIPT/.test(String(e && e.message))) w.errors.push(e);
          throw e;
        },
      );
    };
  }
  return v;
}

// isRelease: the release commands of every 5.x lock: ZREM (Semaphore) and
// the compare-and-delete script, EVAL(SHA) script 1 key identifier (Mutex,
// RedlockMutex); the refresh scripts take more arguments.
function isRelease(m, args) {
  return m === 'zrem' || ((m === 'eval' || m === 'evalsha') && args.length === 4 && Number(args[1]) === 1);
}

// newLock is the library's object for one acquire of key (the key less the
// prefix: ioredis adds the prefix to every key, so that the library's own
// "mutex:" / "semaphore:" stays under it).
function newLock(c, key, w, lease) {
  const name = key.slice(cfg.prefix.length);
  const opts = {
    ...options,
    onLockLost: (err) => {
      if (!lease.lock || lease.done) return; // a refresh raced the release
      lease.lost = true;
      P.send({ type: 'lease_lost', client: c.idx, token: lease.lock.identifier, text: `onLockLost: ${P.errText(err)}` });
    },
  };
  let lock;
  if (FORM === 'redlock') lock = new RS.RedlockMutex(servers.map((s) => view(s, w)), name, opts);
  else if (FORM === 'semaphore') lock = new RS.Semaphore(view(servers[0], w), name, limit, opts);
  else lock = new RS.Mutex(view(servers[0], w), name, opts);
  // each refresh's answer: true renewed the lease (validity: lockTimeout
  // since the refresh was sent), false is the lost lock onLockLost tells
  const refresh = lock._refresh.bind(lock);
  lock._refresh = async (...args) => {
    const sent = Date.now();
    const ok = await refresh(...args);
    if (ok && !lease.done && lease.lock) {
      P.send({ type: 'renewed', client: c.idx, token: lock.identifier, validity_ms: cfg.lockTimeout - (Date.now() - sent) });
    }
    return ok;
  };
  return lock;
}

// failure: how a failed call with redis errors w.errors is reported (null:
// none that matters; the lock was held, or a quorum of masters answered).
function failure(w) {
  return P.failure(w.errors, cfg.mode, servers);
}

async function acquire(req) {
  const c = clientState(req.client);
  const w = { sent: 0, errors: [], releasing: false, deleted: [] };
  const lease = { lock: null, w, lost: false, done: false };
  const lock = newLock(c, req.key, w, lease);
  const t0 = P.nowUs();
  let ok;
  try {
    ok = await lock.tryAcquire();
  } catch (e) {
    // Mutex and Semaphore: a redis error ends the acquire. It took effect
    // only if the command that failed was sent (the earlier tries were
    // refused: not OK / 0).
    return P.reply(req, 'error', { code: 'io', definite: P.notSent(e), text: P.errText(e) });
  }
  const took = P.nowUs() - t0;
  if (!ok) {
    const f = failure(w);
    if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: `tryAcquire false (${f.text})` });
    return P.reply(req, 'not_acquired', { reason: cfg.retryKind === 'none' ? 'busy' : 'timeout', took_us: took });
  }
  lease.lock = lock;
  c.leases.set(P.leaseKey(req.key, lock.identifier), lease);
  return P.reply(req, 'acquire_ok', {
    token: lock.identifier,
    validity_ms: cfg.lockTimeout - (Date.now() - w.sent),
    took_us: took,
  });
}

async function release(req) {
  const c = clientState(req.client);
  const lease = P.held(c, req, true);
  if (!lease) return undefined;
  const { lock, w } = lease;
  // the library knows the lock lost once a refresh failed (isAcquired
  // false); release() then stops nothing and sends nothing
  const lost = lease.lost || !lock.isAcquired;
  lease.done = true;
  w.errors.length = 0;
  w.deleted = [];
  w.releasing = true;
  const t0 = P.nowUs();
  try {
    await lock.release();
  } catch (e) {
    return P.reply(req, 'error', { code: 'io', definite: P.notSent(e), text: P.errText(e) });
  } finally {
    w.releasing = false;
  }
  if (lost) return P.reply(req, 'lease_gone', {});
  // the Redlock release swallows redis errors (catch(() => 0)): any error,
  // with fewer than a quorum ready, is an indefinite one
  const f = failure(w);
  if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: `release (${f.text})` });
  // the compare-and-delete deleted nothing (on no master): the lease had
  // expired, or another held the key
  if (w.deleted.length > 0 && w.deleted.every((n) => !(n > 0))) return P.reply(req, 'lease_gone', {});
  return P.reply(req, 'release_ok', { took_us: P.nowUs() - t0 });
}

P.serve({
  name: NAME,
  async init(req) {
    const lock = (req && req.lock) || {};
    const ttl = Number(lock.ttl_ms) || 0;
    // parseInit is the Redlock drivers': give it a lock of one permit and a
    // TTL (0: the library's default), and read limit and ttl here
    const base = P.parseInit({ ...req, lock: { ...lock, limit: 1, ttl_ms: ttl > 0 ? ttl : DEFAULT_LOCK_TIMEOUT } }, { modes: MODES });
    limit = Number(lock.limit) || 1;
    if (limit !== 1 && FORM !== 'semaphore') {
      throw new P.ProtoError('unsupported', `${NAME} is a mutex: limit ${limit} is the form redis-semaphore-semaphore`);
    }
    if (!Number.isInteger(limit) || limit < 1) throw new P.ProtoError('malformed', `init: lock.limit ${lock.limit} is not an integer >= 1`);
    if (!base.renew) P.log(NAME, 'renew:false: the library refreshes every held lock by itself (its default refreshInterval, 0.8 x lockTimeout); served as that');
    cfg = { ...base, lockTimeout: ttl > 0 ? Math.max(1, Math.round(ttl)) : DEFAULT_LOCK_TIMEOUT };
    options = retryOptions(lock);
    if (ttl > 0) options.lockTimeout = cfg.lockTimeout;
    const prefix = cfg.prefix;
    class Prefixed extends Redis {
      constructor(o) {
        super({ ...o, keyPrefix: prefix });
      }
    }
    servers = await P.connect(Prefixed, cfg, NAME);
    return {
      cfg,
      reply: {
        library: 'redis-semaphore',
        version: LIB_VERSION,
        language: `node ${process.versions.node} (ioredis ${IOREDIS_VERSION})`,
        capabilities: {
          extend: false,
          renewal: true,
          fencing: false,
          semaphore: FORM === 'semaphore',
          blocking: true,
          modes: MODES,
        },
      },
    };
  },
  // the bare loop's cycle (node-common/bare.js): the form's lock object
  // built as newLock builds it, on the shared client itself (not the
  // driver's timing view), tryAcquire then release
  bare() {
    return {
      async acquire(key) {
        const name = key.slice(cfg.prefix.length);
        let lock;
        if (FORM === 'redlock') lock = new RS.RedlockMutex(servers, name, options);
        else if (FORM === 'semaphore') lock = new RS.Semaphore(servers[0], name, limit, options);
        else lock = new RS.Mutex(servers[0], name, options);
        if (!(await lock.tryAcquire())) throw new Error(`tryAcquire refused ${key}, a name of the client's own`);
        return lock;
      },
      release: (lock) => lock.release(),
    };
  },
  handle(req) {
    switch (req.type) {
      case 'acquire':
        return acquire(req);
      case 'release':
        return release(req);
      case 'extend':
        return P.reply(req, 'error', {
          code: 'unsupported',
          definite: true,
          text: 'redis-semaphore has no extend: a held lock is refreshed by the library itself (refreshInterval)',
        });
      default:
        return undefined;
    }
  },
});

// retryOptions: the library's acquireTimeout, retryInterval and
// acquireAttemptsLimit from lockbench's acquire timeout and retry policy.
// The library polls at a fixed retryInterval (default 10 ms) until
// acquireTimeout (default 10 s): no backoff, no jitter.
function retryOptions(lock) {
  const o = {};
  const t = Number(lock.acquire_timeout_ms) || 0;
  if (t > 0) o.acquireTimeout = t;
  const r = lock.retry || { kind: 'library' };
  const mn = Number(r.min_ms) || 0;
  const mx = r.max_ms === undefined ? mn : Number(r.max_ms) || 0;
  switch (r.kind) {
    case 'library':
      break;
    case 'none':
      o.acquireAttemptsLimit = 1;
      break;
    case 'spin':
      o.retryInterval = 0;
      break;
    case 'fixed':
    case 'exp': // no backoff: the first step
      o.retryInterval = mn;
      break;
    case 'random': // no jitter: the middle
      o.retryInterval = (mn + mx) / 2;
      break;
    default:
      throw new P.ProtoError('malformed', `init: unknown retry kind ${JSON.stringify(r.kind)}`);
  }
  return o;
}
