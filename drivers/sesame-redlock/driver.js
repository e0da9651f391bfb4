'use strict';
// lockbench lock driver for @sesamecare-oss/redlock 1.4.x (the maintained
// fork of node-redlock) with ioredis 5: protocol 1 on stdin/stdout, every
// client on one event loop. Modes: single and masters (one ioredis client per
// master, shared by all clients).
//
// Two forms (driver.json registers both):
//   node driver.js          sesame-redlock: acquire / release / extend
//   node driver.js --using  sesame-redlock-using: Redlock.using() with its
//                           automatic extension; the lease is held inside the
//                           routine until lockbench's release, and a failed
//                           extension (the AbortSignal) is sent as lease_lost,
//                           each one that succeeds as renewed.
//
// The package is a CommonJS build (main: build/index.js, no "type":
// "module"), so Node 20 loads it with require(); `import { Redlock } from
// '@sesamecare-oss/redlock'` works from ESM too through Node's CJS interop.

const P = require('../node-common/protocol.js');
const lib = P.libRequire(__dirname);
const Redis = lib('ioredis');
const { Redlock, ResourceLockedError, ExecutionError } = lib('@sesamecare-oss/redlock');

const USING = process.argv.includes('--using');
const NAME = USING ? 'sesame-redlock-using' : 'sesame-redlock';
const MODES = ['single', 'masters'];
const LIB_VERSION = P.libVersion(__dirname, '@sesamecare-oss/redlock');
const IOREDIS_VERSION = P.libVersion(__dirname, 'ioredis');
// the library's default automaticExtensionThreshold
const DEFAULT_THRESHOLD = 500;

let cfg = null;
let servers = null;
let acquireSettings = null; // passed to acquire()/using()
let oneShot = null; // passed to release()/extend() (see README)
const clients = new Map();

// One Redlock object per lockbench client, so that the 'error' events the
// library emits for each vote against (ResourceLockedError for a held key,
// anything else for redis errors) belong to that client's request.
function clientState(idx) {
  let c = clients.get(idx);
  if (c) return c;
  const errors = [];
  // the constructor's settings are what lock.release() uses; the acquire
  // settings are passed per call
  const redlock = new Redlock(servers, oneShot || {});
  redlock.on('error', (e) => {
    if (!(e instanceof ResourceLockedError)) errors.push(e);
  });
  if (USING) {
    // using() extends through lock.extend(), which calls this Redlock's
    // extend: each extension that succeeds is told as a renewed notice,
    // with the validity it left, so that lockbench can tell when the lease
    // expires (its margins: how late a failed renewal was noticed).
    const extend = redlock.extend.bind(redlock);
    redlock.extend = async (existing, duration, settings) => {
      const lock = await extend(existing, duration, settings);
      P.send({ type: 'renewed', client: idx, token: lock.value, validity_ms: lock.expiration - Date.now() });
      return lock;
    };
  }
  c = { idx, redlock, errors, leases: new Map() };
  clients.set(idx, c);
  return c;
}

function acquireFailed(req, c, e, t0) {
  const took = P.nowUs() - t0;
  if (!(e instanceof ExecutionError)) throw e;
  const f = P.failure(c.errors, cfg.mode, servers);
  if (f) return P.reply(req, 'error', { code: 'io', definite: f.definite, text: `${P.errText(e)} (${f.text})` });
  const reason = cfg.retry && cfg.retry.retryCount === 0 ? 'busy' : 'timeout';
  return P.reply(req, 'not_acquired', { reason, took_us: took });
}

function gone(req, c, e) {
  if (!(e instanceof ExecutionError)) throw e;
  const f = P.failure(c.errors, cfg.mode, servers);
  if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: `${P.errText(e)} (${f.text})` });
  return P.reply(req, 'lease_gone', {});
}

async function acquire(req) {
  const c = clientState(req.client);
  c.errors.length = 0;
  const t0 = P.nowUs();
  let lock;
  try {
    lock = await c.redlock.acquire([req.key], cfg.ttl, acquireSettings);
  } catch (e) {
    return acquireFailed(req, c, e, t0);
  }
  const took = P.nowUs() - t0;
  c.leases.set(P.leaseKey(req.key, lock.value), { lock });
  P.reply(req, 'acquire_ok', { token: lock.value, validity_ms: lock.expiration - Date.now(), took_us: took });
}

// using(): acquire_ok is sent from inside the routine, which then waits for
// lockbench's release; using() extends the lock by itself meanwhile and
// releases it when the routine returns.
function acquireUsing(req) {
  const c = clientState(req.client);
  c.errors.length = 0;
  const t0 = P.nowUs();
  let lease = null;
  const done = c.redlock.using([req.key], cfg.ttl, acquireSettings, (signal, context) => {
    const token = context.lock.value;
    lease = { context, signal, releaseReq: null, t0: 0 };
    const held = new Promise((resolve) => {
      lease.finish = resolve;
    });
    c.leases.set(P.leaseKey(req.key, token), lease);
    signal.addEventListener('abort', () => {
      P.send({
        type: 'lease_lost',
        client: req.client,
        token,
        text: `renewal failed: ${P.errText(signal.error)}`,
      });
    });
    P.reply(req, 'acquire_ok', {
      token,
      validity_ms: context.lock.expiration - Date.now(),
      took_us: P.nowUs() - t0,
    });
    return held;
  });
  done.then(
    () => {
      if (lease && lease.releaseReq) P.reply(lease.releaseReq, 'release_ok', { took_us: P.nowUs() - lease.t0 });
    },
    (e) => {
      if (!lease) return acquireFailed(req, c, e, t0);
      // the release at the end of using() failed
      if (lease.releaseReq) return gone(lease.releaseReq, c, e);
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
    lease.releaseReq = req;
    lease.t0 = P.nowUs();
    lease.finish();
    return undefined;
  }
  const t0 = P.nowUs();
  try {
    await c.redlock.release(lease.lock, oneShot || undefined);
  } catch (e) {
    return gone(req, c, e);
  }
  return P.reply(req, 'release_ok', { took_us: P.nowUs() - t0 });
}

async function extend(req) {
  if (USING) {
    return P.reply(req, 'error', {
      code: 'unsupported',
      definite: true,
      text: 'sesame-redlock-using extends by itself inside using(); use sesame-redlock for manual extend',
    });
  }
  const c = clientState(req.client);
  const lease = P.held(c, req, false);
  if (!lease) return undefined;
  c.errors.length = 0;
  let lock;
  try {
    // what lock.extend(ttl) calls, with one attempt unless the library's
    // retry was asked for (lock.extend would retry with the acquire settings)
    lock = await c.redlock.extend(lease.lock, Math.max(1, Math.round(req.ttl_ms)), oneShot || lease.lock.settings);
  } catch (e) {
    const r = gone(req, c, e);
    if (!c.errors.length) c.leases.delete(P.leaseKey(req.key, req.token));
    return r;
  }
  lease.lock = lock;
  return P.reply(req, 'extend_ok', { validity_ms: lock.expiration - Date.now() });
}

P.serve({
  name: NAME,
  async init(req) {
    cfg = P.parseInit(req, { modes: MODES });
    if (cfg.renew && !USING) {
      throw new P.ProtoError('unsupported', 'sesame-redlock is the manual form (acquire/release/extend); its automatic extension is the registered name sesame-redlock-using');
    }
    if (USING && !cfg.renew) {
      P.log(NAME, 'renew:false asked of the using() form: it extends the lock anyway (that is the form)');
    }
    acquireSettings = cfg.retry ? { ...cfg.retry } : {};
    oneShot = cfg.retry ? { retryCount: 0, retryDelay: 0, retryJitter: 0 } : null;
    if (USING) {
      // the library refuses a threshold within 100 ms of the lease time
      if (cfg.ttl <= 100) throw new P.ProtoError('unsupported', `using() needs a lease time above 100 ms (it extends automaticExtensionThreshold ms before expiry, at least 100 ms apart); ttl_ms ${cfg.ttl}`);
      if (cfg.ttl - 100 < DEFAULT_THRESHOLD) acquireSettings.automaticExtensionThreshold = cfg.ttl - 100;
    }
    servers = await P.connect(Redis, cfg, NAME);
    return {
      cfg,
      reply: {
        library: 'sesame-redlock',
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
  // the bare loop's cycle (node-common/bare.js), the plain form's calls:
  // acquire, then release, on the client's Redlock
  bare(idx) {
    if (USING) throw new P.ProtoError('unsupported', 'sesame-redlock-using has no bare loop (sesame-redlock has)');
    const { redlock } = clientState(idx);
    return {
      acquire: (key) => redlock.acquire([key], cfg.ttl, acquireSettings),
      release: (lock) => redlock.release(lock, oneShot || undefined),
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
