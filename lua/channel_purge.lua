--[[
channel_purge: delete every message of a channel (queued, delayed, in flight),
keeping the channel, its configuration and its dedup history.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
ARGV[1] channel: the channel id
Returns: purged_count
Errors:  CHANNEL_NOT_FOUND
]]
local k = account_keys(1)
local ch = channel_keys(7)
if redis.call('HEXISTS', k.channels, ARGV[1]) == 0 then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
return drop_messages(k, ch, ARGV[1])
