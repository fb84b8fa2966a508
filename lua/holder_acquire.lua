--[[
holder_acquire: take one place under an account's cap on concurrent holders
(open WebSockets, long-poll waits), across every pod. Each place is a lease
that its pod refreshes (holder_refresh); places of a crashed pod lapse when
their lease ends, so the cap heals without the pod.
KEYS[1..1] holders keys: holders (rq:{account}:holders:<kind>, zset holder id -> lease end ms)
ARGV[1] holder_id: unique per pod and holder
ARGV[2] cap: most holders at once (integer)
ARGV[3] lease_ms: the lease length (integer)
Returns: { 1, holders now } when taken, { 0, holders now } when the cap is reached
Errors:  none
]]
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then
  return { 0, held }
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return { 1, held + 1 }
