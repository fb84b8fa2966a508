--[[
channel_purge: delete every message of a channel (queued, delayed, in flight),
keeping the channel, its configuration and its dedup history (and its push destination's
dead messages: the dead list goes with them).
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
KEYS[13..16] destination keys: destination, attempts, window, dead of the channel's push destination
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel id
Returns: purged_count
Errors:  CHANNEL_NOT_FOUND
]]
local k = account_keys(1)
local ch = channel_keys(7)
if redis.call('HEXISTS', k.channels, ARGV[1]) == 0 then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
redis.call('UNLINK', KEYS[16])
return drop_messages(k, ch, ARGV[1])
