--[[
account_delete: first step of deleting an account. Removes the account record
and its tokens, so that no request of it succeeds from now on, tells its
WebSocket connections (event 'a'), and returns its channels, whose keys the
caller then removes with channel_delete before account_forget.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV    none
Returns: { channel, ... }
Errors:  ACCOUNT_NOT_FOUND (neither the account nor any of its channels exist)
]]
local k = account_keys(1)
local existed = redis.call('EXISTS', k.account, k.channels, k.tokens)
if existed == 0 then
  return redis.error_reply('ACCOUNT_NOT_FOUND')
end
redis.call('DEL', k.account, k.tokens)
redis.call('SPUBLISH', k.events, 'a')
return redis.call('HKEYS', k.channels)
