-- Whether a holder that entered after entry number ARGV[1] is inside the
-- resource KEYS[1] now.
local v = redis.call('HMGET', KEYS[1], 'h', 'en')
if (tonumber(v[1]) or 0) > 0 and (tonumber(v[2]) or 0) > tonumber(ARGV[1]) then
  return 1
end
return 0
