--[[
token_revoke: delete a token; it is refused from the next request on, and its
WebSocket connections are told to close (event 'r <token id>').
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] token_id: the token id
Returns: 1
Errors:  ACCOUNT_NOT_FOUND; TOKEN_NOT_FOUND
]]
local k = account_keys(1)
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_NOT_FOUND')
end
if redis.call('HDEL', k.tokens, ARGV[1]) == 0 then
  return redis.error_reply('TOKEN_NOT_FOUND')
end
redis.call('SPUBLISH', k.events, 'r ' .. ARGV[1])
return 1
