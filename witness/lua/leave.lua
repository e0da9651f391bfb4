-- A holder leaves the resource's critical section: with its write
-- (ARGV[2] = "exit") or without ("abandon").
-- KEYS[1]: the resource's hash. ARGV[1]: the limit; ARGV[3]: the counter
-- value the holder read; ARGV[4]: its fencing token (0: none); ARGV[5]:
-- "1" when the resource refuses stale writes; ARGV[6]: the holder's entry
-- number.
-- Returns {1 when the resource took the write, else 0; 1 when a holder
-- that entered after this one is inside now, else 0}.
local r = KEYS[1]
local limit = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local v = redis.call('HMGET', r, 'h', 'ols', 'tol', 'w', 'fe', 'us')
local holders, overSince, overTime = tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0
local waiting, fence = tonumber(v[4]) or 0, tonumber(v[5]) or 0
local function s(x) return string.format('%.0f', x) end
if holders <= 0 then
  return redis.error_reply('WITNESS leave of a resource without holder')
end
if holders == limit + 1 then
  overTime = overTime + now - overSince
end
holders = holders - 1
redis.call('HSET', r, 'h', holders, 'tol', s(overTime))
local intruded = 0
if holders > 0 and (tonumber(redis.call('HGET', r, 'en')) or 0) > tonumber(ARGV[6]) then
  intruded = 1
end
if holders == 0 then
  local w = 0
  if waiting > 0 then w = 1 end
  redis.call('HSET', r, 'le', s(now), 'ct', w)
end
if holders < limit and waiting > 0 and not v[6] then
  -- Room for a holder while a client waits: unavailable from now.
  redis.call('HSET', r, 'us', s(now))
end
if ARGV[2] == 'abandon' then
  redis.call('HINCRBY', r, 'ab', 1)
  return {0, intruded}
end
local token = tonumber(ARGV[4])
if token > 0 then
  if token < fence then
    if ARGV[5] == '1' then
      redis.call('HINCRBY', r, 'rw', 1)
      return {0, intruded}
    end
    redis.call('HINCRBY', r, 'sw', 1)
  end
  redis.call('HSET', r, 'fe', s(math.max(fence, token)))
end
redis.call('HSET', r, 'c', tonumber(ARGV[3]) + 1)
redis.call('HINCRBY', r, 'cs', 1)
return {1, intruded}
