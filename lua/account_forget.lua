--[[
account_forget: last step of deleting an account: removes its remaining
account-wide keys once every channel is gone.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV    none
Returns: 1
Errors:  none
]]
local k = account_keys(1)
redis.call('DEL', k.account, k.channels, k.timers, k.usage, k.tokens)
return 1
