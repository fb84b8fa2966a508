--[[
release: give back leases whose pull was never answered (the client left before
the answer was written): each message becomes available again at once, in its
place by send time, and the delivery is not counted (attempts - 1); one
new_message with their count tells the channel's other consumers. Unknown,
stale, malformed and repeated lease ids are ignored.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel id
ARGV[2..] lease ids
Returns: released_count
Errors:  none
]]
local k = account_keys(1)
local ch = channel_keys(7)
local channel = ARGV[1]
local released = 0
local seen = {}
for i = 2, #ARGV do
  local lease = ARGV[i]
  if #lease == 34 and not seen[lease] then
    seen[lease] = true
    local seq, nonce = string.sub(lease, 1, 12), string.sub(lease, 13)
    local rec = redis.call('HGET', ch.m, seq)
    if rec and redis.call('ZSCORE', ch.f, seq) then
      local attempts, current, rest = record_head(rec)
      if current == nonce then
        local _, ts, _, _, _, _, _, _, _, group = record_fields(rec, rest)
        redis.call('HSET', ch.m, seq, record_with_lease(rec, rest, math.max(0, attempts - 1), ''))
        if group ~= '' then
          group_lease_ended(k, ch, channel, group, seq, ts, nil)
        else
          redis.call('ZREM', ch.f, seq)
          redis.call('ZADD', ch.q, ts, seq)
        end
        released = released + 1
      end
    end
  end
end
if released > 0 then publish_now(k, channel, now_ms(), released) end
return released
