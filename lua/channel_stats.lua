--[[
channel_stats: a channel's counts and configuration, exact at this moment,
in O(log n). Reads only.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys of the channel
ARGV[1] channel id
Returns: { queued, delayed, in_flight, storage_bytes, oldest_message_ms or false, config,
           expiring_within_1h, now_ms } or false
         when the channel does not exist. queued counts messages available now,
         including those whose lease has ended.
Errors:  none
]]
local k = account_keys(1)
local ch = channel_keys(7)
local cfg = redis.call('HGET', k.channels, ARGV[1])
if not cfg then return false end
local now = now_ms()
local queued = redis.call('ZCOUNT', ch.q, '-inf', now) + redis.call('ZCOUNT', ch.f, '-inf', now)
local delayed = redis.call('ZCOUNT', ch.q, '(' .. now, '+inf')
local in_flight = redis.call('ZCOUNT', ch.f, '(' .. now, '+inf')
local oldest = false
local first = redis.call('ZRANGE', ch.x, 0, 0)
if first[1] then
  local rec = redis.call('HGET', ch.m, first[1])
  if rec then
    local _, _, rest = record_head(rec)
    local _, ts = record_fields(rec, rest)
    oldest = tonumber(ts)
  end
end
local storage = tonumber(redis.call('HGET', k.usage, ARGV[1]) or '0')
local expiring = redis.call('ZCOUNT', ch.x, '-inf', now + 3600000)
return { queued, delayed, in_flight, storage, oldest, cfg, expiring, now }
