'use strict';
// lockbench lock driver for the `redlock` package (node-redlock) with ioredis:
// protocol 1 on stdin/stdout, every client on one event loop. Two API
// generations, told apart by the module's shape when it loads:
//   4.x (4.0.0 – 4.2.0): module.exports = Redlock; redlock.lock(key, ttl),
//       lock.unlock(), redlock.extend(lock, ttl); one LockError; redis errors
//       as 'clientError' events.
//   5.x (5.0.0-beta.1, -beta.2): exports.default = Redlock;
//       redlock.acquire([key], ttl), redlock.release(lock, settings),
//       redlock.extend(lock, ttl, settings) -> a new Lock; ExecutionError, and
//       every vote against as an 'error' event (ResourceLockedError for a
//       held key).
// Modes: single (one server) and masters (Redlock over N independent masters,
// one ioredis client per master, shared by all clients).

const P = require('../node-common/protocol.js');
const lib = P.libRequire(__dirname);
const Redis = lib('ioredis');
const mod = lib('redlock');

const NAME = 'node-redlock';
const MODES = ['single', 'masters'];
const LIB_VERSION = P.libVersion(__dirname, 'redlock');
const IOREDIS_VERSION = P.libVersion(__dirname, 'ioredis');

let cfg = null;
let servers = null;
const clients = new Map();

// The two generations behind one face. make(settings, onErr): a Redlock on
// the servers whose redis errors go to onErr. acquire(redlock, key) -> lock;
// release(redlock, lock); extend(redlock, lock, ttl) -> the lock now held
// (4.x changes it in place, 5.x returns a new one); failed(e): e is the
// library's "no quorum" (a held lock, a lease gone, or redis errors: see
// P.failure).
const v4 = {
  generation: 4,
  make(settings, onErr) {
    const r = new mod(servers, settings);
    r.on('clientError', onErr);
    return r;
  },
  acquire: (r, key) => r.lock(key, cfg.ttl),
  release: (r, lock) => lock.unlock(),
  async extend(r, lock, ttl) {
    // Redlock.prototype.extend(lock, ttl) is what lock.extend(ttl) calls
    await r.extend(lock, ttl);
    return lock;
  },
  failed: (e) => e instanceof mod.LockError,
};

// 5.x: the settings given to a call are merged over the instance's. release
// always one attempt, as 4.x's unlock (5.x's would retry a lease that is
// gone with the acquire settings); extend as in 4.x (see clientState).
const ONE_SHOT = { retryCount: 0, retryDelay: 0, retryJitter: 0 };
const v5 = {
  generation: 5,
  make(settings, onErr) {
    const r = new mod.default(servers, settings);
    r.on('error', (e) => {
      if (!(e instanceof mod.ResourceLockedError)) onErr(e);
    });
    return r;
  },
  acquire: (r, key) => r.acquire([key], cfg.ttl),
  release: (r, lock) => r.release(lock, ONE_SHOT),
  extend: (r, lock, ttl) => r.extend(lock, ttl),
  failed: (e) => e instanceof mod.ExecutionError,
};

function loadedApi() {
  if (typeof mod === 'function' && typeof mod.LockError === 'function') return v4;
  if (mod && typeof mod.default === 'function' && typeof mod.ExecutionError === 'function') return v5;
  return null;
}
const api = loadedApi();

// The acquire settings in the loaded generation's terms: 5.0.0-beta.1 reads
// retryCount -1 ("forever", which beta.2 and 4.x know) as one attempt;
// Infinity is forever in both betas.
function acquireSettings() {
  const r = cfg.retry;
  if (!r) return {};
  if (api.generation === 5 && r.retryCount === -1) return { ...r, retryCount: Infinity };
  return r;
}

// One Redlock object per lockbench client (they are light: the servers and
// the scripts' hashes), so that the error events the library emits for a
// request's redis errors belong to that client's one request in flight.
function clientState(idx) {
  let c = clients.get(idx);
  if (c) return c;
  const errors = [];
  const onErr = (e) => errors.push(e);
  const acquirer = api.make(acquireSettings(), onErr);
  // extend: one attempt unless lockbench asked for the library's retry (see
  // README): node-redlock's extend retries with the acquire settings, and a
  // lease that is gone does not come back by retrying
  let extender = acquirer;
  if (cfg.retry) extender = api.make(ONE_SHOT, onErr);
  c = { idx, acquirer, extender, errors, leases: new Map() };
  clients.set(idx, c);
  return c;
}

async function acquire(req) {
  const c = clientState(req.client);
  c.errors.length = 0;
  const t0 = P.nowUs();
  let lock;
  try {
    lock = await api.acquire(c.acquirer, req.key);
  } catch (e) {
    const took = P.nowUs() - t0;
    if (!api.failed(e)) throw e;
    const f = P.failure(c.errors, cfg.mode, servers);
    if (f) return P.reply(req, 'error', { code: 'io', definite: f.definite, text: `${P.errText(e)} (${f.text})` });
    const reason = cfg.retry && cfg.retry.retryCount === 0 ? 'busy' : 'timeout';
    return P.reply(req, 'not_acquired', { reason, took_us: took });
  }
  const took = P.nowUs() - t0;
  c.leases.set(P.leaseKey(req.key, lock.value), lock);
  // the validity is the returned lock's own expiration, as it is: 5.x dates
  // it from the first attempt's start and returns it unchecked, so after
  // retries it can be past (node-redlock#296), validity_ms <= 0
  P.reply(req, 'acquire_ok', { token: lock.value, validity_ms: lock.expiration - Date.now(), took_us: took });
}

async function release(req) {
  const c = clientState(req.client);
  const lock = P.held(c, req, true);
  if (!lock) return undefined;
  c.errors.length = 0;
  const t0 = P.nowUs();
  try {
    await api.release(c.acquirer, lock);
  } catch (e) {
    if (!api.failed(e)) throw e;
    const f = P.failure(c.errors, cfg.mode, servers);
    if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: `${P.errText(e)} (${f.text})` });
    return P.reply(req, 'lease_gone', {});
  }
  P.reply(req, 'release_ok', { took_us: P.nowUs() - t0 });
}

async function extend(req) {
  const c = clientState(req.client);
  const k = P.leaseKey(req.key, req.token);
  const lock = P.held(c, req, false);
  if (!lock) return undefined;
  c.errors.length = 0;
  const ttl = Math.max(1, Math.round(req.ttl_ms));
  let now;
  try {
    // on the extender (see clientState)
    now = await api.extend(c.extender, lock, ttl);
  } catch (e) {
    if (!api.failed(e)) throw e;
    const f = P.failure(c.errors, cfg.mode, servers);
    if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: `${P.errText(e)} (${f.text})` });
    // a failed extend: 4.x has also removed the key where it still held it
    // (its _lock unlocks after a failed attempt); both refuse a lock whose
    // expiration is past without asking Redis
    c.leases.delete(k);
    return P.reply(req, 'lease_gone', {});
  }
  c.leases.set(k, now);
  P.reply(req, 'extend_ok', { validity_ms: now.expiration - Date.now() });
}

// init's work: the settings parsed, the servers connected; the init_ok
// fields.
async function setup(req) {
  if (!api) throw new P.ProtoError('unsupported', `redlock ${LIB_VERSION}: neither the 4.x API (module.exports = Redlock, Redlock.LockError) nor the 5.x one (exports.default, ExecutionError)`);
  cfg = P.parseInit(req, { modes: MODES });
  if (cfg.renew) {
    const text = api.generation === 4
      ? 'node-redlock 4.x has no automatic extension; renew:true is not supported (sesame-redlock-using has one)'
      : `node-redlock ${LIB_VERSION}: this driver does not drive using(), 5.x's automatic extension; renew:true is not supported (sesame-redlock-using drives the fork's)`;
    throw new P.ProtoError('unsupported', text);
  }
  servers = await P.connect(Redis, cfg, NAME);
  return {
    cfg,
    reply: {
      library: 'node-redlock',
      version: LIB_VERSION,
      language: `node ${process.versions.node} (ioredis ${IOREDIS_VERSION})`,
      capabilities: { extend: true, renewal: false, fencing: false, semaphore: false, blocking: true, modes: MODES },
    },
  };
}

P.serve({
  name: NAME,
  init: setup,
  // the bare loop's cycle (node-common/bare.js): each client's Redlock as
  // the driver makes it, the driver's calls, no protocol
  bare() {
    const r = api.make(acquireSettings(), () => {});
    return { acquire: (key) => api.acquire(r, key), release: (lock) => api.release(r, lock) };
  },
  handle(req) {
    switch (req.type) {
      case 'acquire':
        return acquire(req);
      case 'release':
        return release(req);
      case 'extend':
        return extend(req);
      default:
        return undefined;
    }
  },
});
