--[[
release_due_account: after a sweep, set a claimed account's entry in its
partition of the due index to its next due time (or remove it). If a sender lowered the entry
meanwhile, the lower of the two is kept.
KEYS[1..1] due keys: due (rq:{~dueN}:due, the due index of the account's partition)
ARGV[1] account: the account id
ARGV[2] claim_score: as claim_due_accounts returned it
ARGV[3] next_due_ms: '' for none
Returns: 1
Errors:  none
]]
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
local next_due = ARGV[3]
if current and tonumber(current) == tonumber(ARGV[2]) then
  if next_due == '' then
    redis.call('ZREM', KEYS[1], ARGV[1])
  else
    redis.call('ZADD', KEYS[1], next_due, ARGV[1])
  end
elseif next_due ~= '' then
  redis.call('ZADD', KEYS[1], 'LT', next_due, ARGV[1])
end
return 1
