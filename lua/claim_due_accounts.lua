--[[
claim_due_accounts: one partition of the due index, for one pod. The partition
has one owner at a time (a short lease the owner renews on every call), so the
pods share the partitions instead of all contending for the same entries.
In 'take' mode a pod that owns the partition, or finds it free, takes the
accounts whose earliest timer has come due; a claimed account's score moves to
now + claim_ms, so if the pod dies another takes it then. In 'leave' mode the
pod gives the partition up if it owns it. Either way the pod is recorded as
seen, so every pod can tell how many share the partitions.
KEYS[1..1] due keys: due (rq:{~dueN}:due, zset account -> earliest due ms)
KEYS[2..3] partition keys: owner, pods (rq:{~dueN}:owner, the pod id, expires;
           rq:{~dueN}:pods, zset pod id -> last seen ms)
ARGV[1] claim_ms: integer
ARGV[2] limit: integer
ARGV[3] pod_id: this pod
ARGV[4] lease_ms: the ownership lease (integer)
ARGV[5] mode: 'take' or 'leave'
Returns: { ms another pod still owns the partition (0 when this pod owns it now, -1 when
           nobody does), pods seen within 3 leases, { account, claim_score, ... } }
         (claim_score is passed back to release_due_account)
Errors:  none
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local pod = ARGV[3]
local lease = tonumber(ARGV[4])
redis.call('ZADD', KEYS[3], now, pod)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - 3 * lease)
redis.call('PEXPIRE', KEYS[3], 3 * lease)
local pods = redis.call('ZCARD', KEYS[3])
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= pod then
  return { math.max(1, redis.call('PTTL', KEYS[2])), pods, {} }
end
if ARGV[5] == 'leave' then
  if owner then redis.call('DEL', KEYS[2]) end
  return { -1, pods, {} }
end
redis.call('SET', KEYS[2], pod, 'PX', lease)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local claim = now + tonumber(ARGV[1])
local out = {}
for _, account in ipairs(due) do
  redis.call('ZADD', KEYS[1], claim, account)
  out[#out + 1] = account
  out[#out + 1] = tostring(claim)
end
return { 0, pods, out }
