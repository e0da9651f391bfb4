-- What the witness saw on the resources KEYS, summed.
-- ARGV[1]: the limit.
-- Returns {overlaps, max occupancy, time over limit µs, critical sections,
-- abandoned, stale writes, rejected writes, counter, holders, longest
-- unavailable µs}.
local limit = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local sum = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
for _, r in ipairs(KEYS) do
  local v = redis.call('HMGET', r, 'ov', 'mo', 'tol', 'ols', 'cs', 'ab', 'sw', 'rw', 'c', 'h', 'lu', 'us')
  local function n(i) return tonumber(v[i]) or 0 end
  local holders = n(10)
  local overTime = n(3)
  if holders > limit then
    overTime = overTime + now - n(4)
  end
  local longest = n(11)
  if v[12] then
    longest = math.max(longest, now - n(12)) -- still waiting now
  end
  sum[1] = sum[1] + n(1)
  sum[2] = math.max(sum[2], n(2))
  sum[3] = sum[3] + overTime
  sum[4] = sum[4] + n(5)
  sum[5] = sum[5] + n(6)
  sum[6] = sum[6] + n(7)
  sum[7] = sum[7] + n(8)
  sum[8] = sum[8] + n(9)
  sum[9] = sum[9] + holders
  sum[10] = math.max(sum[10], longest)
end
return sum
