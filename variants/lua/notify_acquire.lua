-- Take the lock; when it is held, mark it as waited for, in the same
-- atomic step, so that a release between this try and the waiter's BLPOP
-- still leaves a wake token.
-- KEYS[1] lock key; KEYS[2] the waiters mark.
-- ARGV[1] token; ARGV[2] TTL in milliseconds; ARGV[3] how long the mark
-- lives, in milliseconds ("0": the caller will not wait, do not mark).
-- Returns 1 when acquired, 0 when the lock is held.
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
	return 1
end
if ARGV[3] ~= "0" then
	redis.call("SET", KEYS[2], "1", "PX", ARGV[3])
end
return 0
