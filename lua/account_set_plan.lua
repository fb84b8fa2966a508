--[[
account_set_plan: change an account's plan. Its limits change at once; messages
already stored keep the retention they were sent with.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] plan: the plan name
Returns: 1
Errors:  ACCOUNT_NOT_FOUND
]]
local k = account_keys(1)
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_NOT_FOUND')
end
redis.call('HSET', k.account, 'plan', ARGV[1])
return 1
