--[[
sweep_channel: do the time-driven work that has come due on one channel, and
set the channel's timer to its next due time.
  - leases that ended: re-queued (available at their deadline; a grouped message's group
    shows its head again: common.lua group_lease_ended), or, after the
    last delivery, dead-lettered or discarded;
  - delays and retries that ended, and coalesced announcements left pending:
    announced with a new_message event (none when nothing became available);
  - messages past their retention: deleted, their storage freed;
  - dedup entries past their window: forgotten;
  - history records past the channel's history_seconds: deleted, their storage freed.
At most `limit` items of each kind per call; if more remain, the timer stays due.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the channel
KEYS[13..18] target keys: q, f, m, x, d, dx of its dead-letter channel (its own again when none)
KEYS[19..21] history keys: h, hi, he of the channel (lua/lib/history.lua)
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel id
ARGV[2] dead_letter_channel: the one the caller passed keys for ('' for none)
ARGV[3] limit: integer
ARGV[4] fanout_window_ms: the fan-out window (integer)
The plan's max_channels (a dead-letter channel may have to be created) comes from PLANS.
Returns: { account_next_due_ms or false, requeued, dead_lettered, discarded, expired,
           ms until a coalesced new_message is due or false }
Errors:  STALE_CONFIG <dead_letter_channel> when ARGV[2] is not the configured one.
]]
local k = account_keys(1)
local ch = channel_keys(7)
local dl = channel_keys(13)
local channel = ARGV[1]
local max_channels = account_limits(k).max_channels
local limit = tonumber(ARGV[3])
local fanout_window = tonumber(ARGV[4])
local now = now_ms()

local function account_next_due()
  local first = redis.call('ZRANGE', k.timers, 0, 0, 'WITHSCORES')
  if first[2] == nil then return false end
  return tonumber(first[2])
end

local cfg = redis.call('HGET', k.channels, channel)
local timer = redis.call('ZSCORE', k.timers, channel)
if not cfg or not timer then
  redis.call('ZREM', k.timers, channel)
  return { account_next_due(), 0, 0, 0, 0, false }
end
local max_attempts, _, dlq = parse_config(cfg)
local stale = check_dlq(dlq, ARGV[2])
if stale then return stale end
if dlq == '' then dl = nil end
history_begin(k, channel, parse_settings(cfg), 19)

local requeued, dead_lettered, discarded, expired = 0, 0, 0, 0
local more = false

-- Messages that became available since the channel's last announcement
-- (delays and retries that ended), or an announcement left pending.
local last_published, pending = fanout_state(k, channel)
local became_available = pending or redis.call('ZCOUNT', ch.q, '(' .. last_published, now) > 0

local ended = redis.call('ZRANGEBYSCORE', ch.f, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
if #ended == limit * 2 then more = true end
for i = 1, #ended, 2 do
  local seq, deadline = ended[i], ended[i + 1]
  local rec = redis.call('HGET', ch.m, seq)
  if not rec then
    redis.call('ZREM', ch.f, seq)
  else
    local attempts = record_head(rec)
    if attempts >= max_attempts then
      if dead_letter(k, ch, dl, channel, dlq, seq, rec, attempts, now, max_channels) == 'discarded' then
        discarded = discarded + 1
      else
        dead_lettered = dead_lettered + 1
      end
    else
      local group = record_group(rec)
      if group ~= '' then
        group_lease_ended(k, ch, channel, group, seq, tonumber(deadline), tonumber(deadline))
      else
        redis.call('ZREM', ch.f, seq)
        redis.call('ZADD', ch.q, deadline, seq)
      end
      local _, _, rest = record_head(rec)
      history_note(rec, rest, 'y', 'lease', now)
      requeued = requeued + 1
    end
  end
end

-- Runs whose first message may have expired: each is walked from its cursor, deleting
-- while expiries are due (at most `limit` seqs in all).
local budget = limit
local runs = redis.call('ZRANGEBYSCORE', ch.x, 0, now, 'LIMIT', 0, limit)
if #runs == limit then more = true end
for _, cursor in ipairs(runs) do
  if budget <= 0 then
    more = true
    break
  end
  local deleted, visited = walk_run(k, ch, channel, cursor, now, budget, true, false)
  expired = expired + deleted
  budget = budget - math.max(visited, 1)
end
if budget <= 0 then more = true end
drop_if_empty(ch)
settle_first_run(k, ch, channel)

local forgotten = redis.call('ZRANGEBYSCORE', ch.dx, '-inf', now, 'LIMIT', 0, limit)
if #forgotten == limit then more = true end
for _, dedup_id in ipairs(forgotten) do
  redis.call('HDEL', ch.d, dedup_id)
  redis.call('ZREM', ch.dx, dedup_id)
end

if HIST.on then
  local _, left = history_sweep(now, limit)
  if left then more = true end
end

-- The channel's next due time: the first future delay, lease end, expiry or dedup end.
local next_due = false
if more then
  next_due = now
else
  local function first_score(key, min)
    local r = redis.call('ZRANGEBYSCORE', key, min, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    if r[2] then return tonumber(r[2]) end
    return false
  end
  local after = '(' .. now
  next_due = min_due(next_due, first_score(ch.q, after))
  next_due = min_due(next_due, first_score(ch.f, '-inf'))
  local _, expiry = first_run(ch)
  next_due = min_due(next_due, cleanup_due(expiry or false))
  next_due = min_due(next_due, cleanup_due(first_score(ch.dx, '-inf')))
  if HIST.on then
    next_due = min_due(next_due, min_due(HIST.due, cleanup_due(first_score(HIST.keys.e, '-inf'))))
  end
end
local pending_ms = false
if became_available or requeued > 0 then
  -- the count is every message available now: a pending announcement stood for messages
  -- sent earlier, and sleepers beside available messages are to be woken anyway
  pending_ms = announce(k, channel, now, fanout_window, nil, available_count(ch, now))
  if pending_ms then next_due = min_due(next_due, now + pending_ms + FANOUT_BACKUP_MS) end
end
if next_due then
  redis.call('ZADD', k.timers, next_due, channel)
else
  redis.call('ZREM', k.timers, channel)
end
return { account_next_due(), requeued, dead_lettered, discarded, expired, pending_ms }
