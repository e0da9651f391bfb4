-- Shard ARGV[1] of ARGV[2] arrives at a cell's start.
-- KEYS[1]: the set of shards arrived; KEYS[2]: the list the last to
-- arrive releases the others through; KEYS[3]: the run's plan
-- fingerprint. ARGV[3]: this shard's plan fingerprint; ARGV[4]: seconds
-- the witness keeps the keys.
-- Returns how many shards have arrived, this one included.
local plan = redis.call('GET', KEYS[3])
if plan and plan ~= ARGV[3] then
  return redis.error_reply('WITNESS-PLAN another shard of this run has another plan')
end
if not plan then
  redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[4])
end
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return redis.error_reply('WITNESS-TWICE this shard already arrived: restarted? give the run a new id')
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
local arrived = redis.call('SCARD', KEYS[1])
if arrived == tonumber(ARGV[2]) then
  for _ = 2, arrived do
    redis.call('RPUSH', KEYS[2], 1)
  end
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
return arrived
