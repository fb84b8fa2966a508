--[[
destination_redrive: make the messages a destination gave up on (kept as dead in its
channel) available again, oldest first; each gets a fresh attempt count. With id '' (the
channel's own redrive) whatever destination the channel has: none is 0 moved.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the destination's channel
KEYS[13..16] destination keys: destination, attempts, window, dead
ARGV[1] channel: the channel id
ARGV[2] id: the destination's id, or '' for the channel's (any)
ARGV[3] max: most messages to bring back (integer)
Returns: the number of messages made available again
Errors:  DESTINATION_NOT_FOUND (an id that is not the channel's destination); CHANNEL_NOT_FOUND
]]
local k = account_keys(1)
local ch = channel_keys(7)
local dst, dead = KEYS[13], KEYS[16]
if ARGV[2] == '' then
  if redis.call('HEXISTS', k.channels, ARGV[1]) == 0 then
    return redis.error_reply('CHANNEL_NOT_FOUND')
  end
elseif redis.call('HGET', dst, 'id') ~= ARGV[2] then
  return redis.error_reply('DESTINATION_NOT_FOUND')
end
local now = now_ms()
local moved = 0
-- scored by expiry: the ones retention took are gone
redis.call('ZREMRANGEBYSCORE', dead, '-inf', now)
for _, member in ipairs(redis.call('ZRANGE', dead, 0, tonumber(ARGV[3]) - 1)) do
  redis.call('ZREM', dead, member)
  local seq, uuid = string.sub(member, 1, 12), string.sub(member, 13)
  local rec = redis.call('HGET', ch.m, seq)
  if rec then
    local _, _, rest = record_head(rec)
    if string.sub(rec, rest, rest + 21) == uuid then
      redis.call('ZREM', ch.f, seq)
      redis.call('ZADD', ch.q, now, seq)
      redis.call('HDEL', dst, 'a:' .. uuid)
      moved = moved + 1
    end
  end
end
if moved > 0 then publish_now(k, ARGV[1], now, moved) end
return moved
