--[[
webhook_received: count a request a webhook URL accepted and note when
(Redis time). Does nothing if the webhook was deleted meanwhile.
KEYS[1] the account's webhooks hash                                      (rq:{a}:webhooks)
ARGV[1] webhook id
Returns: 1 when counted, 0 when the webhook no longer exists
Errors:  none
]]
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HINCRBY', KEYS[1], ARGV[1] .. ':count', 1)
redis.call('HSET', KEYS[1], ARGV[1] .. ':last', now_ms())
return 1
