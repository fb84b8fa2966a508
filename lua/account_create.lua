--[[
account_create: create an account.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] account: the account id
ARGV[2] plan: the plan name
Returns: created_ms
Errors:  ACCOUNT_EXISTS
]]
local k = account_keys(1)
if redis.call('EXISTS', k.account) == 1 then
  return redis.error_reply('ACCOUNT_EXISTS')
end
local now = now_ms()
redis.call('HSET', k.account, 'id', ARGV[1], 'plan', ARGV[2], 'created_ms', now, 'storage_bytes', 0)
return now
