--[[
destination_result: record the outcomes of attempts to send leased messages to the channel's
destination, in the order given (the order they ended: one call carries every outcome a pod's
delivery loop gathered while its previous call was in flight), and act on each: 'ok'
acknowledges the message; 'gone' (HTTP 410) disables the destination and puts the message
back, available; 'fail' retries it on the destination's schedule (schedule_seconds[n] after
attempt n, the last step repeating; max(step, retry_after_ms) capped at 1 h), or, when its
attempts are spent, moves it to the channel's dead-letter channel, or keeps it as dead in the
channel when there is none (never discarded). Failures count towards the circuit breaker (20
in a row open it for a cooldown of 30 s doubling to 10 min) and disable the destination after
disable_after_ms without a success. Each attempt is logged (newest first) even when its lease
was lost meanwhile; a channel that keeps history (lua/lib/history.lua) notes it in the
message's timeline (a delivery with its status and duration, then the retry, ack or dead
letter it led to). Then, when take_max is above 0, it leases what the destination may be sent
now, as destination_take does (lua/lib/destination.lua): a delivery loop records what ended
and takes what the freed slots allow in one call.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the destination's channel
KEYS[13..16] destination keys: destination, attempts, window, dead
KEYS[17..19] history keys: h, hi, he of the channel (lua/lib/history.lua)
KEYS[20..25] dead-letter keys: q, f, m, x, d, dx of its dead-letter channel (absent when none)
ARGV[1] channel: the channel id
ARGV[2] id: the destination's id
ARGV[3] log_max: most attempts kept in the log (integer)
ARGV[4] cooldown_ms: the breaker's first cooldown (ms)
ARGV[5] disable_after_ms: failing this long without a success disables (ms)
ARGV[6] dead_letter_channel: the one the caller passed keys for ('' for none)
ARGV[7] take_max: most messages to lease after recording (integer; 0: none)
ARGV[8] nonces: take_max random strings of 22 characters, concatenated
ARGV[9] n: the number of outcomes; then 8 values per outcome:
        lease_id (the attempt's lease), outcome ('ok', 'gone' or 'fail'), retry_after_ms (the
        receiver's Retry-After in ms, or ''), failure (what failed, one line; '' on success),
        entry (the attempt's log entry, JSON text), attempt (the destination's attempt number
        for the message), duration_ms (how long the request took, integer), status (the
        receiver's HTTP status, or '' when there was no answer)
The plan's max_channels (a dead-letter channel may have to be created) and retention come
from PLANS: the log is kept for the channel's retention (its setting, at most the plan's)
after its last attempt, as long as the messages it tells of.
Returns: { {result ('acked', 'retry', 'dead', 'dead_lettered', 'disabled', 'stale'), delay_ms,
           breaker opened for ms (0: not), ...} per outcome in order, lowered_due_ms or false,
           the lease's status, wait_ms and {lease_id, record, attempt, ...} as destination_take
           returns them ('idle', 0, {} when take_max is 0) }
Errors:  STALE_CONFIG <dead_letter_channel> when ARGV[6] is not the configured one
]]
local k = account_keys(1)
local ch = channel_keys(7)
local dst, log, dead = KEYS[13], KEYS[14], KEYS[16]
local dl = #KEYS >= 25 and channel_keys(20) or nil
local channel = ARGV[1]
local n = tonumber(ARGV[9])
local take_max = tonumber(ARGV[7])
local now = now_ms()
local MAX_COOLDOWN_MS = 600000
local MAX_RETRY_AFTER_MS = 3600000
local FIELDS = 8
local FIRST = 9

local cfg = redis.call('HGET', k.channels, channel)
local id = redis.call('HGET', dst, 'id')
if not cfg or id ~= ARGV[2] then
  local out = {}
  for i = 1, n do out[#out + 1] = 'stale'; out[#out + 1] = 0; out[#out + 1] = 0 end
  return { out, false, 'gone', 0, {} }
end
local _, _, dlq = parse_config(cfg)
local stale = check_dlq(dlq, ARGV[6])
if stale then return stale end
if dlq == '' then dl = nil end
local settings = parse_settings(cfg)
history_begin(k, channel, settings, 17)

local limits = account_limits(k)
local retention = limits.retention_ms
local kept = settings.retention_ms
if kept and kept < retention then retention = kept end
local entries = {}
for i = 1, n do entries[i] = ARGV[FIRST + (i - 1) * FIELDS + 5] end
if n > 0 then
  redis.call('LPUSH', log, unpack(entries))
  redis.call('LTRIM', log, 0, tonumber(ARGV[3]) - 1)
  redis.call('PEXPIRE', log, retention)
end

local conf = nil
local lowered = false
local available = 0

-- the counters the API shows, and the circuit breaker; returns the cooldown it opened (ms)
local function count(outcome, failure)
  if outcome == 'ok' then
    redis.call('HSET', dst, 'last_success_at', now, 'fails', 0, 'open_until', 0, 'cooldown', 0,
      'failing_since', '')
    return 0
  end
  local fails = redis.call('HINCRBY', dst, 'fails', 1)
  redis.call('HSET', dst, 'last_failure_at', now, 'last_failure', failure)
  local since = tonumber(redis.call('HGET', dst, 'failing_since') or '')
  if not since then
    since = now
    redis.call('HSET', dst, 'failing_since', now)
  end
  if outcome == 'gone' then
    redis.call('HSET', dst, 'state', 'disabled', 'disabled_reason', 'gone')
  elseif now - since >= tonumber(ARGV[5]) then
    redis.call('HSET', dst, 'state', 'disabled', 'disabled_reason', 'failing since ' .. since)
  elseif fails >= DESTINATION_BREAKER_FAILURES and
      (fails == DESTINATION_BREAKER_FAILURES or tonumber(redis.call('HGET', dst, 'open_until') or '0') > 0) then
    local cooldown = tonumber(redis.call('HGET', dst, 'cooldown') or '0') or 0
    cooldown = cooldown > 0 and math.min(cooldown * 2, MAX_COOLDOWN_MS) or tonumber(ARGV[4])
    redis.call('HSET', dst, 'cooldown', cooldown, 'open_until', now + cooldown)
    return cooldown
  end
  return 0
end

-- one outcome: the message, if the lease is still its current one; returns result, delay_ms
local function settle(lease, outcome, retry_after, attempt, duration, status)
  local seq, nonce = string.sub(lease, 1, 12), string.sub(lease, 13)
  local rec = redis.call('HGET', ch.m, seq)
  if not rec then return 'stale', 0 end
  local _, current, rest = record_head(rec)
  if current ~= nonce or #lease ~= 34 then return 'stale', 0 end
  local uuid = string.sub(rec, rest, rest + 21)
  -- the attempt in the timeline: 'D,<started at>,<attempt>:<status>:<duration_ms>:<outcome>'
  duration = tonumber(duration) or 0
  history_note(rec, rest, 'D', attempt .. ':' .. status .. ':' .. duration .. ':' .. outcome,
    now - duration)
  local hol = redis.call('HGET', dst, 'hol')
  local function forget()
    redis.call('HDEL', dst, 'a:' .. uuid)
    if hol == seq .. uuid then redis.call('HDEL', dst, 'hol') end
  end

  if outcome == 'ok' then
    forget()
    remove_message(k, ch, channel, seq, rec, rest)
    settle_first_run(k, ch, channel)
    return 'acked', 0
  end
  if outcome == 'gone' then
    redis.call('ZREM', ch.f, seq)
    redis.call('ZADD', ch.q, now, seq)
    return 'disabled', 0
  end

  conf = conf or cjson.decode(redis.call('HGET', dst, 'config'))
  local schedule_s = conf.retry.schedule_seconds
  local tried = tonumber(redis.call('HGET', dst, 'a:' .. uuid) or '1') or 1
  if tried >= conf.retry.max_attempts then
    forget()
    if dl and ensure_channel(k, dlq, limits.max_channels, now) then
      dead_letter(k, ch, dl, channel, dlq, seq, rec, tried, now, limits.max_channels)
      return 'dead_lettered', 0
    end
    -- kept in the channel, out of every consumer's reach, until redriven or expired; scored by
    -- its expiry, so that the dead count (ZCOUNT from now) leaves out the messages retention took
    redis.call('ZREM', ch.f, seq)
    redis.call('ZREM', ch.q, seq)
    redis.call('ZREMRANGEBYSCORE', dead, '-inf', now)
    redis.call('ZADD', dead, record_exp(rec, rest), seq .. uuid)
    return 'dead', 0
  end
  local step = schedule_s[math.min(tried + 1, #schedule_s)] * 1000
  retry_after = tonumber(retry_after)
  if retry_after then step = math.max(step, math.min(retry_after, MAX_RETRY_AFTER_MS)) end
  history_note(rec, rest, 'y', step, now)
  redis.call('ZREM', ch.f, seq)
  redis.call('ZADD', ch.q, now + step, seq)
  if step > 0 then
    lowered = min_due(lowered, schedule(k.timers, channel, now + step))
  else
    available = available + 1
  end
  return 'retry', step
end

local out = {}
for i = 1, n do
  local a = FIRST + (i - 1) * FIELDS
  local lease, outcome = ARGV[a + 1], ARGV[a + 2]
  local opened = count(outcome, ARGV[a + 4])
  local result, delay = settle(lease, outcome, ARGV[a + 3], ARGV[a + 6], ARGV[a + 7], ARGV[a + 8])
  out[#out + 1] = result
  out[#out + 1] = delay
  out[#out + 1] = opened
end
-- retries due at once: one new_message for them all
if available > 0 then publish_now(k, channel, now, available) end
lowered = min_due(lowered, history_schedule())
if take_max <= 0 then return { out, lowered, 'idle', 0, {} } end
local taken = destination_lease(k, ch, dst, KEYS[15], channel, ARGV[2], take_max, ARGV[8], now, 17)
return { out, min_due(lowered, taken[4]), taken[1], taken[2], taken[3] }
