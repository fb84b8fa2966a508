--[[
webhook_delete: remove a webhook endpoint of a channel; its URL is refused
from the next request on, on every pod.
KEYS[1..1] webhooks keys: webhooks (rq:{a}:webhooks)
ARGV[1] channel: the channel id
ARGV[2] webhook_id: the webhook id
Returns: 1
Errors:  WEBHOOK_NOT_FOUND (no such webhook on this channel)
]]
local rec = redis.call('HGET', KEYS[1], ARGV[2])
if not rec or cjson.decode(rec).channel ~= ARGV[1] then
  return redis.error_reply('WEBHOOK_NOT_FOUND')
end
redis.call('HDEL', KEYS[1], ARGV[2], ARGV[2] .. ':created', ARGV[2] .. ':count', ARGV[2] .. ':last',
  ARGV[2] .. ':refusal')
return 1
