'use strict';
// lockbench lock driver for the `redlock` package 4.2.x (node-redlock) with
// ioredis: protocol 1 on stdin/stdout, every client on one event loop.
// Modes: single (one server) and masters (Redlock over N independent masters,
// one ioredis client per master, shared by all clients).

const P = require('../node-common/protocol.js');
const lib = P.libRequire(__dirname);
const Redis = lib('ioredis');
const Redlock = lib('redlock');

const NAME = 'node-redlock';
const MODES = ['single', 'masters'];
const LIB_VERSION = lib('redlock/package.json').version;
const IOREDIS_VERSION = lib('ioredis/package.json').version;

let cfg = null;
let servers = null;
const clients = new Map();

// One Redlock object per lockbench client (they are light: the servers and
// the scripts' hashes), so that the 'clientError' events the library emits
// for a request's redis errors belong to that client's one request in flight.
function clientState(idx) {
  let c = clients.get(idx);
  if (c) return c;
  const errors = [];
  const onErr = (e) => errors.push(e);
  const acquirer = new Redlock(servers, cfg.retry || {});
  acquirer.on('clientError', onErr);
  // extend: one attempt unless lockbench asked for the library's retry (see
  // README): node-redlock's extend retries with the acquire settings, and a
  // lease that is gone does not come back by retrying
  let extender = acquirer;
  if (cfg.retry) {
    extender = new Redlock(servers, { retryCount: 0, retryDelay: 0, retryJitter: 0 });
    extender.on('clientError', onErr);
  }
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
    lock = await c.acquirer.lock(req.key, cfg.ttl);
  } catch (e) {
    const took = P.nowUs() - t0;
    if (!(e instanceof Redlock.LockError)) throw e;
    const f = P.failure(c.errors, cfg.mode, servers);
    if (f) return P.reply(req, 'error', { code: 'io', definite: f.definite, text: `${P.errText(e)} (${f.text})` });
    const reason = cfg.retry && cfg.retry.retryCount === 0 ? 'busy' : 'timeout';
    return P.reply(req, 'not_acquired', { reason, took_us: took });
  }
  const took = P.nowUs() - t0;
  c.leases.set(P.leaseKey(req.key, lock.value), lock);
  P.reply(req, 'acquire_ok', { token: lock.value, validity_ms: lock.expiration - Date.now(), took_us: took });
}

async function release(req) {
  const c = clientState(req.client);
  const lock = P.held(c, req, true);
  if (!lock) return undefined;
  c.errors.length = 0;
  const t0 = P.nowUs();
  try {
    await lock.unlock();
  } catch (e) {
    if (!(e instanceof Redlock.LockError)) throw e;
    const f = P.failure(c.errors, cfg.mode, servers);
    if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: `${P.errText(e)} (${f.text})` });
    return P.reply(req, 'lease_gone', {});
  }
  P.reply(req, 'release_ok', { took_us: P.nowUs() - t0 });
}

async function extend(req) {
  const c = clientState(req.client);
  const lock = P.held(c, req, false);
  if (!lock) return undefined;
  c.errors.length = 0;
  const ttl = Math.max(1, Math.round(req.ttl_ms));
  try {
    // Redlock.prototype.extend(lock, ttl) is what lock.extend(ttl) calls,
    // on the extender (see clientState)
    await c.extender.extend(lock, ttl);
  } catch (e) {
    if (!(e instanceof Redlock.LockError)) throw e;
    const f = P.failure(c.errors, cfg.mode, servers);
    if (f) return P.reply(req, 'error', { code: 'io', definite: false, text: `${P.errText(e)} (${f.text})` });
    // a failed extend: node-redlock has also removed the key where it still
    // held it (its _lock unlocks after a failed attempt)
    c.leases.delete(P.leaseKey(req.key, req.token));
    return P.reply(req, 'lease_gone', {});
  }
  P.reply(req, 'extend_ok', { validity_ms: lock.expiration - Date.now() });
}

P.serve({
  name: NAME,
  async init(req) {
    cfg = P.parseInit(req, { modes: MODES });
    if (cfg.renew) throw new P.ProtoError('unsupported', 'node-redlock 4.x has no automatic extension; renew:true is not supported (sesame-redlock-using has one)');
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
