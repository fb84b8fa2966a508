--[[
token_create: store a new token (only the hash of its secret) for an account.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] token id
ARGV[2] token record json
Returns: 1
Errors:  ACCOUNT_NOT_FOUND
]]
local k = account_keys(1)
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_NOT_FOUND')
end
redis.call('HSET', k.tokens, ARGV[1], ARGV[2])
return 1
