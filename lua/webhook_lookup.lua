--[[
webhook_lookup: read what accepting a request on a webhook URL needs. Reads
only; the caller compares the key's hash in constant time.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
KEYS[7..7] webhooks keys: webhooks (rq:{a}:webhooks)
ARGV[1] webhook_id: the webhook id
Returns: { webhook record json or false, plan or false }
Errors:  none
]]
local k = account_keys(1)
return { redis.call('HGET', KEYS[7], ARGV[1]), redis.call('HGET', k.account, 'plan') }
