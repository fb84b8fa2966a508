--[[
channel_purge: delete every message of a channel (queued, delayed, in flight),
keeping the channel, its configuration and its dedup history. A channel that keeps
history (history_seconds) keeps each message's record, marked purged; the channel's timer
is then set to the first record's end (the caller lowers the due index to it).
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
KEYS[13..15] history keys: h, hi, he of the channel (lua/lib/history.lua)
KEYS[16..19] destination keys: destination, attempts, window, dead of the channel's push
             destination (its dead list goes with the messages)
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel id
Returns: purged_count
Errors:  CHANNEL_NOT_FOUND
]]
local k = account_keys(1)
local ch = channel_keys(7)
local cfg = redis.call('HGET', k.channels, ARGV[1])
if not cfg then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
history_begin(k, ARGV[1], parse_settings(cfg), 13)
if HIST.on then
  local all = redis.call('HGETALL', ch.m)
  for i = 1, #all, 2 do
    if #all[i] == 12 and string.match(all[i], '^%x+$') then
      local _, _, rest = record_head(all[i + 1])
      HIST.ended(all[i + 1], rest, 'p', '')
    end
  end
end
redis.call('UNLINK', KEYS[19])
local count = drop_messages(k, ch, ARGV[1])
history_schedule()
return count
