--[[
channel_stats: a channel's counts and configuration, exact at this moment,
in O(log n) (expiring_within_1h: O(minutes of expiry within the hour)). Reads only.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
ARGV[1] channel: the channel id
Returns: { queued, delayed, in_flight, storage_bytes, oldest_message_ms or false, config,
           expiring_within_1h, now_ms } or false
         when the channel does not exist. queued counts messages available now,
         including those whose lease has ended. expiring_within_1h counts whole minutes of
         expiry: messages expiring in the minute that holds now + 1 h count too.
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
local oldest = oldest_sent_ms(ch)
local storage = tonumber(redis.call('HGET', k.usage, ARGV[1]) or '0')
local expiring = expiring_until(ch, now + 3600000)
return { queued, delayed, in_flight, storage, oldest, cfg, expiring, now }
