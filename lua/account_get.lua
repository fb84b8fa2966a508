--[[
account_get: an account's plan and usage. Reads only.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV    none
Returns: { plan, created_ms, storage_bytes, channel_count } or false when there is no such account
Errors:  none
]]
local k = account_keys(1)
local fields = redis.call('HMGET', k.account, 'plan', 'created_ms', 'storage_bytes')
if not fields[1] then return false end
return { fields[1], fields[2], fields[3] or '0', redis.call('HLEN', k.channels) }
