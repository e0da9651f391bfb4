-- Take the lock and hand out its next fencing token in one step.
-- KEYS[1] lock key; KEYS[2] the lock's fence counter (same hash slot);
-- ARGV[1] owner token; ARGV[2] TTL in milliseconds.
-- Returns the fencing token (the counter after INCR), or nil when the lock
-- is held. The counter persists: tokens never go back.
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
	return redis.call("INCR", KEYS[2])
end
return false
