--[[
holder_refresh: extend the leases of places this pod still holds, so that
they outlive the refresh interval but not a crash of the pod.
KEYS[1..1] holders keys: holders (rq:{account}:holders:<kind>, zset holder id -> lease end ms)
ARGV[1] lease_ms: the lease length (integer)
ARGV[2..n] holder ids (strings)
Returns: how many of them were still held
Errors:  none
]]
local deadline = now_ms() + tonumber(ARGV[1])
local held = 0
for i = 2, #ARGV do
  if redis.call('ZADD', KEYS[1], 'XX', 'CH', deadline, ARGV[i]) == 1 then held = held + 1 end
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return held
