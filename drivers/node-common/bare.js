'use strict';
// A Node driver's bare loop (docs/drivers.md, "The bare loop"), lockbench
// calibrate --driver's reference, run in the driver's folder in place of
// driver.js. It reads init (parsed and set up by the driver's own init) and
// the loop request on stdin, runs `clients` async tasks on this one event
// loop, each cycling acquire then release on a lock name of its own through
// the driver's library calls (its bare(client): acquire(key), then
// release(the lock it gave)), and writes one loop_ok
// line: the cycles of the measured phase, its time, this process's CPU in
// it and the acquires' median time. No protocol in the way.

const path = require('path');
const readline = require('readline');
const P = require('./protocol.js');

// The driver is ./driver.js of the working directory (lockbench runs a
// driver in its folder), with this process's arguments (its form): its
// P.serve hands its driver object here instead of serving.
function main() {
  P.bareOf.loading = true;
  require(path.resolve('driver.js'));
  const driver = P.bareOf.driver;
  if (!driver || typeof driver.bare !== 'function') {
    fail('bare', new P.ProtoError('unsupported', `${path.resolve('driver.js')} has no bare loop (its P.serve object has no bare(client))`));
    return;
  }
  const lines = [];
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (!line.trim() || lines.length === 2) return;
    lines.push(line);
    if (lines.length === 2) run(driver, JSON.parse(lines[0]), JSON.parse(lines[1])).then(finish, (e) => fail(driver.name, e));
  });
}

function finish(msg) {
  P.send(msg);
  process.exit(0);
}

function fail(name, e) {
  if (!(e instanceof P.ProtoError)) P.log(name, `bare loop: ${e.stack || e}`);
  P.send({ type: 'error', code: e.code || 'crash', definite: true, text: e.message || String(e) });
  process.exit(1);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(driver, init, loop) {
  const { reply } = await driver.init(init);
  let stop = false;
  let measuring = false;
  let cycles = 0;
  const took = [];
  const client = async (i) => {
    const lib = driver.bare(i);
    const key = `${init.prefix}c0:lock:${i}`;
    while (!stop) {
      const t0 = P.nowUs();
      const held = await lib.acquire(key);
      const us = P.nowUs() - t0;
      await lib.release(held);
      cycles++;
      if (measuring) took.push(us);
    }
  };
  const tasks = [];
  for (let i = 0; i < loop.clients; i++) tasks.push(client(i));
  // a client's failure stops the others and is thrown once they end (held
  // here from the start: a rejection nobody handled would end Node)
  const ended = Promise.all(tasks.map((t) => t.catch((e) => { stop = true; throw e; }))).then(() => null, (e) => e);
  await sleep(loop.warmup_ms);
  const warmup = cycles;
  const cpu0 = process.cpuUsage();
  const t0 = P.nowUs();
  measuring = true;
  await sleep(loop.duration_ms);
  stop = true;
  const failed = await ended;
  if (failed) throw failed;
  const elapsed = P.nowUs() - t0;
  const cpu = process.cpuUsage(cpu0);
  took.sort((a, b) => a - b);
  return {
    type: 'loop_ok',
    library: reply.library,
    version: reply.version,
    cycles: cycles - warmup,
    warmup_cycles: warmup,
    elapsed_us: elapsed,
    cpu_us: cpu.user + cpu.system,
    acquire_p50_us: took.length ? took[Math.floor(took.length / 2)] : 0,
  };
}

main();
