--[[
rate_limit: count one request of a token in its current fixed window, so that
a token's rate limit holds across every pod.
KEYS[1] rate counter   rq:{account}:rate:<token id>  (string: requests in the window; expires with it)
ARGV[1] limit: requests allowed per window (integer)
ARGV[2] window length (ms, integer)
Returns: 0 when the request is allowed, else the ms until the window ends
Errors:  none
]]
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if n <= tonumber(ARGV[1]) then
  return 0
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return ttl
