-- Shard ARGV[1] is done with what the set KEYS[1] counts (a cell, the run).
-- ARGV[2]: seconds the witness keeps the set.
-- Returns how many shards are done, this one included.
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return redis.call('SCARD', KEYS[1])
