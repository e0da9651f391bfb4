-- A client starts trying to acquire the resource (ARGV[1] = "wait") or
-- stops trying without entering ("gaveup").
-- KEYS[1]: the resource's hash. ARGV[2]: seconds the witness keeps it.
local r = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local v = redis.call('HMGET', r, 'h', 'w', 'fs')
local holders, waiting = tonumber(v[1]) or 0, tonumber(v[2]) or 0
if ARGV[1] == 'gaveup' then
  redis.call('HSET', r, 'w', math.max(waiting - 1, 0))
  return 0
end
redis.call('HSET', r, 'w', waiting + 1)
if holders == 0 then
  -- Free while someone waits: unavailable from when it became free (or
  -- from this first wait, on a resource never held).
  redis.call('HSET', r, 'wd', 1)
  if not v[3] then
    redis.call('HSET', r, 'fs', string.format('%.0f', now))
  end
end
redis.call('EXPIRE', r, ARGV[2])
return 0
