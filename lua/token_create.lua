--[[
token_create: store a new token (only the hash of its secret) for an account,
within the plan's max_tokens (dashboard sessions are not counted).
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] token_id: the token id
ARGV[2] record: the token record json
ARGV[3] counted: '1' to hold it within the plan's max_tokens (from PLANS), '0' not (sessions)
Returns: 1
Errors:  ACCOUNT_NOT_FOUND; TOKEN_LIMIT <max_tokens>
]]
local k = account_keys(1)
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_NOT_FOUND')
end
local max_tokens = ARGV[3] == '1' and account_limits(k).max_tokens or 0
if max_tokens > 0 then
  local held = 0
  for _, json in ipairs(redis.call('HVALS', k.tokens)) do
    if not string.find(json, '"kind":"session"', 1, true) then held = held + 1 end
  end
  if held >= max_tokens then
    return redis.error_reply('TOKEN_LIMIT ' .. max_tokens)
  end
end
redis.call('HSET', k.tokens, ARGV[1], ARGV[2])
return 1
