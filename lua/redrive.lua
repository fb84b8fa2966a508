--[[
redrive: move messages waiting in a channel (typically a dead-letter channel)
to a target channel, oldest first. Moved messages keep their id, body,
metadata, timestamp and expiry; attempts restart at 0 and the source mark is
cleared. In-flight messages are not moved. Each message moves exactly once.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys of the channel moved from
KEYS[13..18] channel keys of the target channel
ARGV[1] channel moved from
ARGV[2] target channel
ARGV[3] max messages to move (integer)
ARGV[4] '1' to move only messages dead-lettered from the target, '0' to move all
ARGV[5] max_channels of the plan (the target may have to be created)
ARGV[6] how many waiting messages to look at, at most (integer)
Returns: moved_count
Errors:  CHANNEL_NOT_FOUND (the channel moved from); CHANNEL_LIMIT <max_channels>
]]
local k = account_keys(1)
local from = channel_keys(7)
local to = channel_keys(13)
local source, target = ARGV[1], ARGV[2]
local max = tonumber(ARGV[3])
local only_from_target = ARGV[4] == '1'
if redis.call('HEXISTS', k.channels, source) == 0 then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
local now = now_ms()
local moved = 0
local earliest_expiry = false
-- A grouped message's next one shows in q when it moves, so the waiting ones are read again
-- until enough moved or all were looked at (skipped ones are read past).
local limit = tonumber(ARGV[6])
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
        if moved == 0 and not ensure_channel(k, target, tonumber(ARGV[5]), now) then
          return redis.error_reply('CHANNEL_LIMIT ' .. ARGV[5])
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
