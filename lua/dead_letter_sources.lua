--[[
dead_letter_sources: the source channels of the dead-lettered messages waiting
(not in flight) in a channel, from the oldest, so that a redrive without `to`
can move each back where it came from. Reads only.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the dead-letter channel
ARGV[1] scan: how many waiting messages to look at (integer)
Returns: { source channel, ... } distinct, in order of first appearance
Errors:  none
]]
local ch = channel_keys(7)
local seen, out = {}, {}
for _, seq in ipairs(redis.call('ZRANGE', ch.q, 0, tonumber(ARGV[1]) - 1)) do
  local rec = redis.call('HGET', ch.m, seq)
  if rec then
    local _, _, rest = record_head(rec)
    local _, _, _, _, _, _, src = record_fields(rec, rest)
    if src ~= '' and not seen[src] then
      seen[src] = true
      out[#out + 1] = src
    end
  end
end
return out
