'use strict';
// node-redlock's bare loop (docs/drivers.md, "The bare loop"): the driver's
// init and its Redlock per client, redlock.lock(key, ttl) then
// lock.unlock() (4.x; acquire/release in 5.x) in a plain loop on one event
// loop, no protocol in the way.
const D = require('./driver.js');
require('../node-common/bare.js').bare('node-redlock', async (init) => {
  const { reply } = await D.setup(init);
  return { library: reply.library, version: reply.version, cycle: D.bareCycle };
});
