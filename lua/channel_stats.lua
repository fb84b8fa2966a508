--[[
channel_stats: a channel's counts and configuration, exact at this moment,
in O(log n) (expiring_within_1h: O(minutes of expiry within the hour)). Reads only.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
KEYS[13..16] destination keys: destination, attempts, window, dead of the channel's push destination
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel id
Returns: { queued, delayed, in_flight, storage_bytes, oldest_message_ms or false, config,
           expiring_within_1h, now_ms, groups, blocked_groups, dead_count } or false
         when the channel does not exist. queued counts messages available now,
         including those whose lease has ended, and grouped messages waiting behind their
         group's head (every message neither delayed, in flight nor dead). groups: groups holding
         a message; blocked_groups: groups whose head is in flight or waiting for a retry
         (docs/api/groups.md). dead_count: messages its push destination gave up on,
         kept as dead in the channel (unexpired). expiring_within_1h counts whole minutes of
         expiry: messages expiring in the minute that holds now + 1 h count too.
Errors:  none
]]
local k = account_keys(1)
local ch = channel_keys(7)
local cfg = redis.call('HGET', k.channels, ARGV[1])
if not cfg then return false end
local now = now_ms()
local delayed = redis.call('ZCOUNT', ch.q, '(' .. now, '+inf')
local in_flight = redis.call('ZCOUNT', ch.f, '(' .. now, '+inf')
local dead = redis.call('ZCOUNT', KEYS[16], '(' .. now, '+inf')
local queued = math.max(0, message_count(ch) - delayed - in_flight - dead)
local groups = redis.call('HLEN', ch.gn)
local blocked = redis.call('HLEN', ch.gl) + redis.call('ZCARD', ch.gw)
local oldest = oldest_sent_ms(ch)
local storage = tonumber(redis.call('HGET', k.usage, ARGV[1]) or '0')
local expiring = expiring_until(ch, now + 3600000)
return { queued, delayed, in_flight, storage, oldest, cfg, expiring, now, groups, blocked, dead }
