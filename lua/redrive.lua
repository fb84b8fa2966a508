--[[
redrive: move messages waiting in a channel (typically a dead-letter channel)
to a target channel, oldest first. Moved messages keep their id, body,
metadata, timestamp and expiry; attempts restart at 0 and the source mark is
cleared. In-flight messages are not moved. Each message moves exactly once.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the channel moved from
KEYS[13..18] target keys: q, f, m, x, d, dx of the target channel
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel moved from
ARGV[2] target: the target channel
ARGV[3] max: the most messages to move (integer)
ARGV[4] only_from_target: '1' to move only messages dead-lettered from the target, '0' all
ARGV[5] scan: how many waiting messages to look at, at most (integer)
The plan's max_channels (the target may have to be created) comes from PLANS.
Returns: moved_count
Errors:  CHANNEL_NOT_FOUND (the channel moved from); CHANNEL_LIMIT <max_channels>
]]
local k = account_keys(1)
local from = channel_keys(7)
local to = channel_keys(13)
local source, target = ARGV[1], ARGV[2]
local max = tonumber(ARGV[3])
local only_from_target = ARGV[4] == '1'
local max_channels = account_limits(k).max_channels
if redis.call('HEXISTS', k.channels, source) == 0 then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
local now = now_ms()
local moved = 0
local earliest_expiry = false
-- A grouped message's next one shows in q when it moves, so the waiting ones are read again
-- until enough moved or all were looked at (skipped ones are read past).
local limit = tonumber(ARGV[5])
local looked, skipped = 0, 0
while moved < max and looked < limit do
  local waiting = redis.call('ZRANGEBYSCORE', from.q, '-inf', '+inf', 'LIMIT', skipped, limit - looked)
  if #waiting == 0 then break end
  for _, seq in ipairs(waiting) do
    if moved >= max then break end
    looked = looked + 1
    local rec = redis.call('HGET', from.m, seq)
    if rec then
      local _, _, rest = record_head(rec)
      local _, _, _, _, _, _, src = record_fields(rec, rest)
      if not only_from_target or src == target then
        if moved == 0 and not ensure_channel(k, target, max_channels, now) then
          return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
        end
        local fresh, exp, size, group = moved_record(rec, '', '')
        move_message(k, from, to, source, target, seq, fresh, exp, size, now, group)
        earliest_expiry = min_due(earliest_expiry, exp)
        moved = moved + 1
      else
        skipped = skipped + 1
      end
    else
      redis.call('ZREM', from.q, seq)
    end
  end
end
if moved > 0 then
  redis.call('ZADD', k.timers, 'LT', cleanup_due(earliest_expiry), target)
  publish_now(k, target, now, moved)
end
return moved
