--[[
claim_due_accounts: take the accounts whose earliest timer has come due from
the global due index, so that one pod sweeps each. A claimed account's score
moves to now + claim_ms: if the pod that claimed it dies, another takes it then.
KEYS[1] due index   rq:{~sys}:due  (zset account -> earliest due ms)
ARGV[1] claim_ms (integer)
ARGV[2] limit (integer)
Returns: { account, claim_score, ... }  (claim_score is passed back to release_due_account)
Errors:  none
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local claim = now + tonumber(ARGV[1])
local out = {}
for _, account in ipairs(due) do
  redis.call('ZADD', KEYS[1], claim, account)
  out[#out + 1] = account
  out[#out + 1] = tostring(claim)
end
return out
