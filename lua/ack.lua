--[[
ack: delete the messages whose current lease is given, and return the messages
of retried leases to the queue after their delay (a negative acknowledgement).
Unknown, stale, malformed and repeated lease ids are ignored and not counted.
A retried message that has had its last delivery is dead-lettered or discarded.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys of the channel
KEYS[13..18] channel keys of its dead-letter channel (the channel's own again when none)
ARGV[1] channel id
ARGV[2] the dead-letter channel the caller passed keys for ('' for none)
ARGV[3] max_channels of the plan
ARGV[4] a, the number of lease ids to acknowledge; then a lease ids
ARGV[5 + a] r, the number of retries; then r pairs: lease id, delay_ms (integer)
Returns: { acked_count, retried_count, lowered_due_ms or false }
Errors:  STALE_CONFIG <dead_letter_channel> when retries are given and ARGV[2] is
         not the configured dead-letter channel.
]]
local k = account_keys(1)
local ch = channel_keys(7)
local dl = channel_keys(13)
local channel = ARGV[1]
local max_channels = tonumber(ARGV[3])
local a = tonumber(ARGV[4])
local r = tonumber(ARGV[5 + a])

local cfg = redis.call('HGET', k.channels, channel)
if not cfg then
  return { 0, 0, false }
end
local max_attempts, _, dlq = parse_config(cfg)
-- Checked before any write: an error reply does not undo the acks already done,
-- and the caller's rerun would then no longer count them.
if r > 0 then
  local stale = check_dlq(dlq, ARGV[2])
  if stale then return stale end
end
if dlq == '' then dl = nil end

-- The message a lease id names, if that lease is its current one.
local function leased(lease)
  if #lease ~= 34 then return nil end
  local seq, nonce = string.sub(lease, 1, 12), string.sub(lease, 13)
  local rec = redis.call('HGET', ch.m, seq)
  if not rec then return nil end
  local attempts, current, rest = record_head(rec)
  if current ~= nonce then return nil end
  return seq, rec, attempts, rest
end

local acked = 0
for i = 1, a do
  local seq, rec, _, rest = leased(ARGV[4 + i])
  if seq then
    local _, _, _, size = record_fields(rec, rest)
    remove_message(k, ch, channel, seq, tonumber(size))
    acked = acked + 1
  end
end

local retried = 0
local lowered = false
if r > 0 then
  local now = now_ms()
  local available_now = false
  local earliest = false
  local seen = {}
  for i = 1, r do
    local base = 5 + a + (i - 1) * 2
    local lease = ARGV[base + 1]
    local seq, rec, attempts
    if not seen[lease] then
      seen[lease] = true
      seq, rec, attempts = leased(lease)
    end
    if seq then
      retried = retried + 1
      if attempts >= max_attempts then
        dead_letter(k, ch, dl, channel, dlq, seq, rec, attempts, now, max_channels)
      else
        local delay = tonumber(ARGV[base + 2])
        redis.call('ZREM', ch.f, seq)
        redis.call('ZADD', ch.q, now + delay, seq)
        if delay > 0 then
          earliest = min_due(earliest, now + delay)
        else
          available_now = true
        end
      end
    end
  end
  if earliest then lowered = schedule(k.timers, channel, earliest) end
  if available_now then publish_now(k, channel, now) end
end
return { acked, retried, lowered }
