--[[
webhook_create: add a webhook endpoint to a channel, creating the channel if
needed (the plan's channel limit applies). The record holds only the hash of
the URL key; the verification secret is kept so that deliveries can be checked.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
KEYS[7]    the account's webhooks hash                                   (rq:{a}:webhooks)
ARGV[1] channel id
ARGV[2] max_channels of the plan (integer)
ARGV[3] webhook id
ARGV[4] webhook record json (written as given)
ARGV[5] most webhooks the account may have (integer)
Returns: created_ms (Redis time)
Errors:  ACCOUNT_GONE (the caller's account was deleted); CHANNEL_LIMIT <max_channels>; WEBHOOK_LIMIT <max webhooks>
]]
local k = account_keys(1)
local hooks = KEYS[7]
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_GONE')
end
-- five fields per webhook: record, created, count, last, refusal
if redis.call('HLEN', hooks) >= tonumber(ARGV[5]) * 5 then
  return redis.error_reply('WEBHOOK_LIMIT ' .. ARGV[5])
end
local now = now_ms()
if not ensure_channel(k, ARGV[1], tonumber(ARGV[2]), now) then
  return redis.error_reply('CHANNEL_LIMIT ' .. ARGV[2])
end
redis.call('HSET', hooks, ARGV[3], ARGV[4], ARGV[3] .. ':created', now, ARGV[3] .. ':count', 0,
  ARGV[3] .. ':last', 0, ARGV[3] .. ':refusal', '')
return now
