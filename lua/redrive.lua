--[[
redrive: move messages waiting in a channel (typically a dead-letter channel)
to a target channel, oldest first. Moved messages keep their id, body,
metadata, timestamp and expiry; attempts restart at 0 and the source mark is
cleared. In-flight messages are not moved. Each message moves exactly once.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the channel moved from
KEYS[13..18] target keys: q, f, m, x, d, dx of the target channel
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
local waiting = redis.call('ZRANGEBYSCORE', from.q, '-inf', '+inf', 'LIMIT', 0, tonumber(ARGV[5]))
for _, seq in ipairs(waiting) do
  if moved >= max then break end
  local rec = redis.call('HGET', from.m, seq)
  if rec then
    local _, _, rest = record_head(rec)
    local _, _, _, _, _, _, src = record_fields(rec, rest)
    if not only_from_target or src == target then
      if moved == 0 and not ensure_channel(k, target, max_channels, now) then
        return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
      end
      local fresh, exp, size = moved_record(rec, '', '')
      move_message(k, from, to, source, target, seq, fresh, exp, size, now)
      earliest_expiry = min_due(earliest_expiry, exp)
      moved = moved + 1
    end
  end
end
if moved > 0 then
  redis.call('ZADD', k.timers, 'LT', cleanup_due(earliest_expiry), target)
  publish_now(k, target, now, moved)
end
return moved
