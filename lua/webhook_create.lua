--[[
webhook_create: add a webhook endpoint to a channel, creating the channel if
needed (the plan's channel limit applies). The record holds only the hash of
the URL key; the verification secret is kept so that deliveries can be checked.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
KEYS[7..7] webhooks keys: webhooks (rq:{a}:webhooks)
ARGV[1] channel: the channel id
ARGV[2] webhook_id: the webhook id
ARGV[3] record: the webhook record json (written as given)
ARGV[4] max_webhooks: the most webhooks the account may have (integer)
The plan's max_channels (the channel may have to be created) comes from PLANS.
Returns: created_ms (Redis time)
Errors:  ACCOUNT_GONE (the caller's account was deleted); CHANNEL_LIMIT <max_channels>; WEBHOOK_LIMIT <max webhooks>
]]
local k = account_keys(1)
local hooks = KEYS[7]
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_GONE')
end
-- five fields per webhook: record, created, count, last, refusal
if redis.call('HLEN', hooks) >= tonumber(ARGV[4]) * 5 then
  return redis.error_reply('WEBHOOK_LIMIT ' .. ARGV[4])
end
local now = now_ms()
local max_channels = account_limits(k).max_channels
if not ensure_channel(k, ARGV[1], max_channels, now) then
  return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
end
redis.call('HSET', hooks, ARGV[2], ARGV[3], ARGV[2] .. ':created', now, ARGV[2] .. ':count', 0,
  ARGV[2] .. ':last', 0, ARGV[2] .. ':refusal', '')
return now
