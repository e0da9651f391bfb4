-- Delete the lock only when it still holds our token and, when someone
-- marked it as waited for, leave one wake token for a waiter's BLPOP.
-- KEYS[1] lock key; KEYS[2] the waiters mark; KEYS[3] the wake list.
-- ARGV[1] token; ARGV[2] how long a wake token lives, in milliseconds.
-- Returns 0 when the lock was not ours, 1 when deleted, 2 when deleted and
-- a wake token left.
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
	return 0
end
redis.call("DEL", KEYS[1])
if redis.call("EXISTS", KEYS[2]) == 0 then
	return 1
end
-- One token is enough (one waiter can take the lock); the list never
-- grows past it and expires when no waiter takes it.
redis.call("LPUSH", KEYS[3], "1")
redis.call("LTRIM", KEYS[3], 0, 0)
redis.call("PEXPIRE", KEYS[3], ARGV[2])
return 2
