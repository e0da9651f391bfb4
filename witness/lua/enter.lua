-- A holder enters the resource's critical section and reads its counter.
-- KEYS[1]: the resource's hash. ARGV[1]: holders admitted (the limit);
-- ARGV[2]: seconds the witness keeps it.
-- Returns {counter read, entry number, handoff gap in µs or -1}.
local r = KEYS[1]
local limit = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local v = redis.call('HMGET', r, 'h', 'w', 'us', 'ct', 'le', 'ov', 'mo', 'en', 'c', 'lu')
local function n(i) return tonumber(v[i]) or 0 end
local holders, waiting = n(1), n(2)
local contended, lastExit, overlaps, maxOcc = n(4), n(5), n(6), n(7)
local enters, counter, longest = n(8), n(9), n(10)
local function s(x) return string.format('%.0f', x) end
local gap = -1
if holders == 0 and contended == 1 then
  -- The handoff: released while others waited.
  contended = 0
  gap = now - lastExit
end
holders = holders + 1
if holders > limit then
  overlaps = overlaps + 1
  if holders == limit + 1 then
    redis.call('HSET', r, 'ols', s(now))
  end
end
enters = enters + 1
if v[3] and not (holders < limit and waiting > 0) then
  -- The unavailability ends: the last permit is taken.
  longest = math.max(longest, now - tonumber(v[3]))
  redis.call('HDEL', r, 'us')
end
redis.call('HSET', r, 'h', holders, 'ct', contended,
  'ov', overlaps, 'mo', math.max(maxOcc, holders), 'en', enters, 'lu', s(longest))
redis.call('EXPIRE', r, ARGV[2])
return {counter, enters, gap}
