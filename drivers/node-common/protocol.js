'use strict';
// The Node side of lockbench's lock-driver protocol 1, shared by the
// node-redlock and sesame-redlock drivers: stdin/stdout framing, request
// validation, init parsing, lockbench's retry policy in Redlock's terms and
// the ioredis options. No dependencies of its own: each driver loads its
// libraries with libRequire, from its library environment.

const fs = require('fs');
const { createRequire } = require('module');
const path = require('path');
const readline = require('readline');

const PROTOCOL = 1;

// One JSON object per line. Writes to a pipe are synchronous on Linux, so a
// reply is out before process.exit. (Gathering one event-loop turn's replies
// into one write was measured, 7 December: no change in the driver's CPU per
// acquisition; see docs/drivers.md, "The bare loop".)
function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

function log(name, text) {
  try {
    process.stderr.write(`${name} driver: ${text}\n`);
  } catch (_) {
    // nothing to do
  }
}

class ProtoError extends Error {
  constructor(code, text) {
    super(text);
    this.code = code;
  }
}

const REQUIRED = {
  acquire: [['key', 'string']],
  release: [['key', 'string'], ['token', 'string']],
  extend: [['key', 'string'], ['token', 'string'], ['ttl_ms', 'number']],
};

function malformed(text, id, client) {
  send({
    type: 'error',
    in_reply_to: id === undefined ? null : id,
    client: client === undefined ? null : client,
    code: 'malformed',
    definite: true,
    text,
  });
}

const isInt = (v) => typeof v === 'number' && Number.isInteger(v);

// bareOf is where serve leaves the driver when node-common/bare.js loads
// it (loading set): the bare loop runs it instead of the protocol.
const bareOf = { loading: false, driver: null };

// serve reads stdin until it closes, then exits. driver: {name, init(req)
// -> Promise<init_ok fields>, handle(req) (may be async; it replies
// itself), and for the bare loop bare(client) -> {acquire(key) -> the
// library's lock, release(lock)}, the driver's library calls}.
function serve(driver) {
  if (bareOf.loading) {
    bareOf.driver = driver; // node-common/bare.js runs it
    return;
  }
  let cfg = null;
  let initing = false;
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    line = line.trim();
    if (!line) return;
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      malformed(`not JSON: ${e.message}`);
      return;
    }
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      malformed('not a JSON object');
      return;
    }
    const id = req.id;
    const client = isInt(req.client) ? req.client : null;
    if (!isInt(id)) {
      malformed('id missing or not an integer', null, client);
      return;
    }
    if (req.type === 'init') {
      if (cfg || initing) {
        malformed('init sent twice', id);
        return;
      }
      initing = true;
      Promise.resolve()
        .then(() => driver.init(req))
        .then(
          (ok) => {
            cfg = ok.cfg;
            send({ type: 'init_ok', in_reply_to: id, ...ok.reply });
          },
          (e) => {
            initing = false;
            const code = e instanceof ProtoError ? e.code : 'crash';
            if (!(e instanceof ProtoError)) log(driver.name, `init: ${e.stack || e}`);
            send({ type: 'error', in_reply_to: id, code, definite: true, text: e.message || String(e) });
          },
        );
      return;
    }
    if (req.type === 'clock' && client !== null && client >= 0) {
      // the wall clock as the libraries read it (Date.now(): the clock
      // shim's when lockbench moves this process's clock)
      send({ type: 'clock_ok', in_reply_to: id, client, now_ms: Date.now() });
      return;
    }
    const fields = REQUIRED[req.type];
    if (!fields) {
      malformed(`unknown type ${JSON.stringify(req.type)}`, id, client);
      return;
    }
    if (client === null || client < 0) {
      malformed(`${req.type}: client missing or not an integer >= 0`, id);
      return;
    }
    const bad = fields.filter(([f, t]) => typeof req[f] !== t).map(([f]) => f);
    if (bad.length) {
      malformed(`${req.type}: field ${bad.join(', ')} missing or of the wrong type`, id, client);
      return;
    }
    if (!cfg) {
      malformed(`${req.type} before init`, id, client);
      return;
    }
    if (!req.key.startsWith(cfg.prefix)) {
      malformed(`key ${JSON.stringify(req.key)} does not start with the prefix ${JSON.stringify(cfg.prefix)}`, id, client);
      return;
    }
    Promise.resolve()
      .then(() => driver.handle(req))
      .catch((e) => {
        // a driver bug: say so, keep serving
        log(driver.name, `${req.type} client ${client}: ${e.stack || e}`);
        send({ type: 'error', in_reply_to: id, client, code: 'crash', definite: false, text: String(e) });
      });
  });
  // stdin closed: leave at once; held leases expire by themselves
  rl.on('close', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
}

function splitAddr(a) {
  if (typeof a !== 'string' || !a.includes(':')) throw new ProtoError('malformed', `bad address ${JSON.stringify(a)} (want host:port)`);
  const i = a.lastIndexOf(':');
  return { host: a.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(a.slice(i + 1)) };
}

function readPassword(p) {
  if (p === undefined || p === null) return undefined;
  if (typeof p !== 'object') throw new ProtoError('malformed', 'init: password must be {"env":…} or {"file":…}');
  if (typeof p.env === 'string') return process.env[p.env] || undefined;
  if (typeof p.file === 'string') {
    const v = fs.readFileSync(p.file, 'utf8');
    return v.endsWith('\n') ? v.slice(0, -1) : v;
  }
  throw new ProtoError('malformed', 'init: password must be {"env":…} or {"file":…}');
}

// Redlock's retry settings (node-redlock 4.x and @sesamecare-oss/redlock share
// them: retryCount, retryDelay, retryJitter; delay = retryDelay + a uniform
// integer offset in [-retryJitter, retryJitter]) from lockbench's policy.
// kind library: null (keep the library's defaults, 10 retries 200±100 ms).
// The libraries have no deadline: acquire_timeout_ms becomes a number of
// retries, timeout / max(retryDelay, 1 ms) (a setTimeout(0) waits about 1 ms).
function retrySettings(lock) {
  const r = lock.retry || { kind: 'library' };
  const mn = Number(r.min_ms) || 0;
  const mx = r.max_ms === undefined ? mn : Number(r.max_ms) || 0;
  let delay;
  let jitter = 0;
  switch (r.kind) {
    case 'library':
      return null;
    case 'none':
      return { retryCount: 0, retryDelay: 0, retryJitter: 0 };
    case 'spin':
      delay = 0;
      break;
    case 'fixed':
      delay = mn;
      break;
    case 'exp':
      // no backoff in Redlock: the first step of lockbench's backoff
      delay = mn;
      break;
    case 'random':
      delay = (mn + mx) / 2;
      jitter = Math.floor((mx - mn) / 2);
      break;
    default:
      throw new ProtoError('malformed', `init: unknown retry kind ${JSON.stringify(r.kind)}`);
  }
  const t = Number(lock.acquire_timeout_ms) || 0;
  // -1 is "retry forever" in both libraries
  const retryCount = t > 0 ? Math.floor(t / Math.max(delay, 1)) : -1;
  return { retryCount, retryDelay: delay, retryJitter: jitter };
}

// parseInit: the common part of init. opts: {modes}.
function parseInit(req, opts) {
  if (req.protocol !== PROTOCOL) throw new ProtoError('unsupported', `protocol ${JSON.stringify(req.protocol)} not supported (this driver speaks ${PROTOCOL})`);
  const rc = req.redis;
  if (!rc || typeof rc !== 'object') throw new ProtoError('malformed', 'init: redis missing');
  const mode = rc.mode || 'single';
  if (!opts.modes.includes(mode)) throw new ProtoError('unsupported', `mode ${JSON.stringify(mode)} not supported by this driver (modes: ${opts.modes.join(', ')})`);
  if (!Array.isArray(rc.addrs) || rc.addrs.length === 0) throw new ProtoError('malformed', 'init: redis.addrs missing');
  let addrs = rc.addrs.map(splitAddr);
  if (mode === 'single') addrs = addrs.slice(0, 1);
  const prefix = req.prefix;
  if (typeof prefix !== 'string' || !prefix) throw new ProtoError('malformed', 'init: prefix missing');
  const lock = req.lock;
  if (!lock || typeof lock !== 'object') throw new ProtoError('malformed', 'init: lock missing');
  if ((lock.limit || 1) !== 1) throw new ProtoError('unsupported', `Redlock is a mutex: limit ${lock.limit} (a semaphore) is not supported`);
  const ttl = Number(lock.ttl_ms) || 0;
  if (ttl <= 0) throw new ProtoError('unsupported', 'Redlock has no default lease time: ttl_ms must be > 0');
  return {
    mode,
    addrs,
    prefix,
    clients: Number(req.clients) || 1,
    username: rc.username || undefined,
    password: readPassword(rc.password),
    tls: rc.tls || null,
    // both libraries take whole milliseconds (PX); sesame refuses others
    ttl: Math.max(1, Math.round(ttl)),
    renew: !!lock.renew,
    retry: retrySettings(lock),
    retryKind: (lock.retry && lock.retry.kind) || 'library',
  };
}

// ioredis options for one server. Two departures from ioredis's defaults,
// both so that a master that is down counts as a vote against at once
// instead of holding every Redlock attempt: no offline queue (a command on a
// connection that is not ready fails at once: "Stream isn't writeable") and
// maxRetriesPerRequest 0 (commands in flight when a connection drops fail at
// once instead of being resent after up to 20 reconnects).
function ioredisOptions(cfg, addr) {
  const o = {
    host: addr.host,
    port: addr.port,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    lazyConnect: false,
  };
  if (cfg.username) o.username = cfg.username;
  if (cfg.password !== undefined) o.password = cfg.password;
  if (cfg.tls) {
    const t = cfg.tls;
    o.tls = {};
    if (t.ca_file) o.tls.ca = fs.readFileSync(t.ca_file);
    if (t.cert_file) o.tls.cert = fs.readFileSync(t.cert_file);
    if (t.key_file) o.tls.key = fs.readFileSync(t.key_file);
    if (t.server_name) o.tls.servername = t.server_name;
    if (t.insecure_skip_verify) o.tls.rejectUnauthorized = false;
  }
  return o;
}

// connect builds one ioredis client per address and waits (at most waitMs)
// until each is ready or has failed once, so that the first requests do not
// meet "Stream isn't writeable" while the connections are being made. The
// clients keep reconnecting by themselves afterwards.
async function connect(Redis, cfg, name, waitMs = 3000) {
  const clients = cfg.addrs.map((a) => {
    const c = new Redis(ioredisOptions(cfg, a));
    // an 'error' without a listener would kill the process
    let last = '';
    c.on('error', (e) => {
      if (e.message !== last) log(name, `${a.host}:${a.port}: ${e.message}`);
      last = e.message;
    });
    c.on('ready', () => {
      last = '';
    });
    return c;
  });
  await Promise.all(
    clients.map(
      (c) =>
        new Promise((resolve) => {
          if (c.status === 'ready') return resolve();
          const t = setTimeout(done, waitMs);
          function done() {
            clearTimeout(t);
            c.off('ready', done);
            c.off('error', done);
            resolve();
          }
          c.once('ready', done);
          c.once('error', done);
        }),
    ),
  );
  return clients;
}

// Errors ioredis raised without writing the command (nothing took effect).
function notSent(e) {
  return /Stream isn't writeable|enableOfflineQueue options is false/.test(String(e && e.message));
}

function errText(e) {
  return `${(e && e.name) || 'Error'}: ${(e && e.message) || String(e)}`.replace(/\s+/g, ' ');
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

// The key of a client's lease in its lease map: lock name and token.
const leaseKey = (key, token) => `${key}\u0000${token}`;

// held is the lease in client state c's leases that req names (removed
// from them when take), or undefined with lease_gone answered: the
// libraries cannot act on another's token, so nothing is sent to Redis.
function held(c, req, take) {
  const k = leaseKey(req.key, req.token);
  const lease = c.leases.get(k);
  if (!lease) {
    reply(req, 'lease_gone', {});
    return undefined;
  }
  if (take) c.leases.delete(k);
  return lease;
}

// reply answers req with a message of type and its fields.
function reply(req, type, fields) {
  send({ type, in_reply_to: req.id, client: req.client, ...fields });
}

// How a failed Redlock operation is reported. Both Redlock libraries turn
// every redis error into a missing vote and reject the same way whatever
// the cause, so a driver looks at the redis errors seen during the
// request (errors): none -> the lock was held / not ours (null); in single
// mode any -> an error; with N masters (servers, the connected clients) an
// error only when fewer than a quorum of them are ready (else the failure
// is the lock's, not the network's).
function failure(errors, mode, servers) {
  if (errors.length === 0) return null;
  if (mode === 'masters') {
    const ready = servers.filter((s) => s.status === 'ready').length;
    if (ready >= Math.floor(servers.length / 2) + 1) return null;
  }
  return { definite: errors.every(notSent), text: errors.slice(-3).map(errText).join('; ') };
}

// libRequire is require for a driver's libraries: from the library
// environment lockbench names in LOCKBENCH_DRIVER_ENV (the driver's folder
// for the version it pins, a cache directory for another version: lockbench
// drivers install), else from the driver's own folder.
function libRequire(folder) {
  const env = process.env.LOCKBENCH_DRIVER_ENV || folder;
  return createRequire(path.join(env, 'package.json'));
}

// libVersion is the version an installed library's package.json gives,
// read from the file: a package whose "exports" leave out ./package.json
// (redlock 5.0.0's) cannot be required for it. A leading "v" (redlock
// 5.0.0-beta.2 writes "v5.0.0-beta.2") is dropped: the registry's version,
// which lockbench asked for, has none.
function libVersion(folder, name) {
  const env = process.env.LOCKBENCH_DRIVER_ENV || folder;
  const file = path.join(env, 'node_modules', name, 'package.json');
  return String(JSON.parse(fs.readFileSync(file, 'utf8')).version).replace(/^v/, '');
}

module.exports = {
  PROTOCOL,
  libRequire,
  libVersion,
  send,
  bareOf,
  log,
  serve,
  parseInit,
  connect,
  ProtoError,
  notSent,
  errText,
  nowUs,
  leaseKey,
  held,
  reply,
  failure,
};
