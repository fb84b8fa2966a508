--[[
ack: delete the messages whose current lease is given, and return the messages
of retried leases to the queue after their delay (a negative acknowledgement).
Unknown, stale, malformed and repeated lease ids are ignored and not counted.
Message groups (docs/api/groups.md): acking a group's last leased message shows its next
head (announced with new_message when available now); a retried grouped message stays in
its group and comes back as its head (common.lua: group_lease_ended).
A retried message that has had its last delivery is dead-lettered or discarded.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the channel
KEYS[13..14] caller keys: rate, token_rate
KEYS[15..17] history keys: h, hi, he of the channel (lua/lib/history.lua)
KEYS[18..23] dead-letter keys: q, f, m, x, d, dx of its dead-letter channel (absent when none)
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1..3] caller: token_id, proof, rate (lua/lib/caller.lua)
ARGV[4] channel: the channel id
ARGV[5] must_exist: '1' to refuse a channel that does not exist (SQS), '0' to count nothing
ARGV[6] dead_letter_channel: the one the caller passed keys for ('' for none)
ARGV[7] a: the number of lease ids to acknowledge; then a lease ids
ARGV[8 + a] r: the number of retries; then r pairs: lease id, delay_ms (integer)
The plan's max_channels (a dead-letter channel may have to be created) comes from PLANS.
Returns: { acked_count, retried_count, lowered_due_ms or false }
Errors:  the caller's (lua/lib/caller.lua); STALE_CONFIG <dead_letter_channel> when retries
         are given and ARGV[6] is not the configured dead-letter channel; CHANNEL_NOT_FOUND
         (must_exist).
]]
local k = account_keys(1)
local ch = channel_keys(7)
local dl = #KEYS >= 23 and channel_keys(18) or nil
local channel = ARGV[4]
local caller = check_caller(k, KEYS[13], KEYS[14], channel, now_ms())
if caller.err then return caller end
local max_channels = caller.limits.max_channels
local a = tonumber(ARGV[7])
local r = tonumber(ARGV[8 + a])

local cfg = redis.call('HGET', k.channels, channel)
if not cfg then
  if ARGV[5] == '1' then return redis.error_reply('CHANNEL_NOT_FOUND') end
  return { 0, 0, false }
end
local max_attempts, _, dlq = parse_config(cfg)
-- Checked before any write: an error reply does not undo the acks already done,
-- and the caller's rerun would then no longer count them.
if r > 0 then
  local stale = check_dlq(dlq, ARGV[6])
  if stale then return stale end
end
if dlq == '' then dl = nil end
history_begin(k, channel, parse_settings(cfg), 15)
HIST.reason = 'a'

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

local now = now_ms()
local available_now = 0
local earliest = false
-- a group head shown at `at`: announced when available now, else the timer waits for it
local function shown(at)
  if not at then return end
  if at <= now then
    available_now = available_now + 1
  else
    earliest = min_due(earliest, at)
  end
end

local acked = 0
for i = 1, a do
  local seq, rec, _, rest = leased(ARGV[7 + i])
  if seq then
    shown(remove_message(k, ch, channel, seq, rec, rest))
    acked = acked + 1
  end
end

if acked > 0 then settle_first_run(k, ch, channel) end

local retried = 0
local lowered = false
if r > 0 then
  local seen = {}
  for i = 1, r do
    local base = 8 + a + (i - 1) * 2
    local lease = ARGV[base + 1]
    local seq, rec, attempts, rest
    if not seen[lease] then
      seen[lease] = true
      seq, rec, attempts, rest = leased(lease)
    end
    if seq then
      retried = retried + 1
      if attempts >= max_attempts then
        dead_letter(k, ch, dl, channel, dlq, seq, rec, attempts, now, max_channels)
      else
        local delay = tonumber(ARGV[base + 2])
        history_note(rec, rest, 'y', delay, now)
        local group = record_group(rec)
        if group ~= '' then
          shown(group_lease_ended(k, ch, channel, group, seq, now + delay, now))
        else
          redis.call('ZREM', ch.f, seq)
          redis.call('ZADD', ch.q, now + delay, seq)
          shown(now + delay)
        end
      end
    end
  end
end
if earliest then lowered = schedule(k.timers, channel, earliest) end
if available_now > 0 then publish_now(k, channel, now, available_now) end
lowered = min_due(lowered, history_schedule())
return { acked, retried, lowered }
