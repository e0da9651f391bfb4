-- A client starts to wait for the resource, its try having found it held
-- (ARGV[1] = "wait"), or stops waiting: it gave up, timed out, or is about
-- to enter ("gaveup").
-- KEYS[1]: the resource's hash. ARGV[2]: seconds the witness keeps it;
-- ARGV[3]: holders admitted (the limit).
-- The resource is unavailable while it has room for a holder and a client
-- waits: from 'us' (µs), present only then; 'lu' is the longest stretch.
local r = KEYS[1]
local limit = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local v = redis.call('HMGET', r, 'h', 'w', 'us', 'lu')
local holders, waiting = tonumber(v[1]) or 0, tonumber(v[2]) or 0
if ARGV[1] == 'gaveup' then
  waiting = math.max(waiting - 1, 0)
else
  waiting = waiting + 1
end
redis.call('HSET', r, 'w', waiting)
local free = holders < limit and waiting > 0
if free and not v[3] then
  redis.call('HSET', r, 'us', string.format('%.0f', now))
elseif not free and v[3] then
  local longest = math.max(tonumber(v[4]) or 0, now - tonumber(v[3]))
  redis.call('HSET', r, 'lu', string.format('%.0f', longest))
  redis.call('HDEL', r, 'us')
end
redis.call('EXPIRE', r, ARGV[2])
return 0
