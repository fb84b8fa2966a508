--[[
pull: lease up to batch_size available messages, oldest-available first.
A message is available when its queue score (send time + delay, or retry time)
or its ended lease's deadline is at or before now. Each returned message gets
attempts + 1, a fresh lease nonce and a deadline of now + visibility timeout.
An available message that has had its last delivery is dead-lettered or
discarded here instead of being returned; one past its retention is deleted.
A paused channel leases nothing (and skips that work): the answer is its backlog only.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the channel pulled from
KEYS[13..14] caller keys: rate, token_rate
KEYS[15..17] history keys: h, hi, he of the channel (lua/lib/history.lua)
KEYS[18..23] dead-letter keys: q, f, m, x, d, dx of its dead-letter channel (absent when none)
ARGV[1..3] caller: token_id, proof, rate (lua/lib/caller.lua)
ARGV[4] channel: the channel id
ARGV[5] must_exist: '1' to refuse a channel that does not exist (SQS), '0' to answer it empty
ARGV[6] visibility_timeout_ms: integer, or '' for the channel's setting, else the default
ARGV[7] batch_size: integer
ARGV[8] nonces: batch_size random strings of 22 characters, concatenated
ARGV[9] dead_letter_channel: the one the caller passed keys for ('' for none)
The plan's max_channels (a dead-letter channel may have to be created) comes from PLANS.
Returns: { backlog_count, {lease_id, record, lease_id, record, ...}, lowered_due_ms or false,
           discarded, dead_lettered, expired, receive_wait_ms (the channel's setting) or false }
         lease_id = seq (12 hex) .. nonce (22 chars).
Errors:  the caller's (lua/lib/caller.lua); STALE_CONFIG <dead_letter_channel> when ARGV[9]
         is not the configured one; CHANNEL_NOT_FOUND (must_exist).
]]
local k = account_keys(1)
local ch = channel_keys(7)
local dl = #KEYS >= 23 and channel_keys(18) or nil
local channel = ARGV[4]
local caller = check_caller(k, KEYS[13], KEYS[14], channel, now_ms())
if caller.err then return caller end
local batch = tonumber(ARGV[7])
local nonces = ARGV[8]
local max_channels = caller.limits.max_channels

local cfg = redis.call('HGET', k.channels, channel)
if not cfg then
  if ARGV[5] == '1' then return redis.error_reply('CHANNEL_NOT_FOUND') end
  return { 0, {}, false, 0, 0, 0, false }
end
local max_attempts, _, dlq = parse_config(cfg)
local stale = check_dlq(dlq, ARGV[9])
if stale then return stale end
if dlq == '' then dl = nil end
local settings = parse_settings(cfg)
history_begin(k, channel, settings, 15)
-- the only messages a pull removes itself are expired ones (dead_letter notes its own)
HIST.reason = 'e'
local receive_wait = settings.receive_wait_ms or false
if settings.paused then
  return { redis.call('ZCARD', ch.q) + redis.call('ZCARD', ch.f), {}, false, 0, 0, 0, receive_wait }
end
local vt = tonumber(ARGV[6]) or settings.visibility_ms or DEFAULT_VISIBILITY_MS

local now = now_ms()
local deadline = now + vt
local out = {}
local leased = 0
local discarded, dead_lettered, expired = 0, 0, 0

-- Messages discarded or expired on the way are bounded too, so that one pull
-- stays O(log n + batch) even when the sweeper has fallen behind.
local MAX_SKIPPED = 1000
while leased < batch and discarded + dead_lettered + expired < MAX_SKIPPED do
  local need = batch - leased
  local queued = redis.call('ZRANGEBYSCORE', ch.q, '-inf', now, 'WITHSCORES', 'LIMIT', 0, need)
  local ended = redis.call('ZRANGEBYSCORE', ch.f, '-inf', now, 'WITHSCORES', 'LIMIT', 0, need)
  if #queued == 0 and #ended == 0 then break end
  local i, j = 1, 1
  for _ = 1, need do
    local from_queue
    if i > #queued and j > #ended then break end
    if j > #ended then
      from_queue = true
    elseif i > #queued then
      from_queue = false
    else
      local qs, fs = tonumber(queued[i + 1]), tonumber(ended[j + 1])
      from_queue = qs < fs or (qs == fs and queued[i] < ended[j])
    end
    local seq
    if from_queue then
      seq = queued[i]; i = i + 2
    else
      seq = ended[j]; j = j + 2
    end
    local rec = redis.call('HGET', ch.m, seq)
    if not rec then
      redis.call('ZREM', ch.q, seq)
      redis.call('ZREM', ch.f, seq)
    else
      local attempts, _, rest = record_head(rec)
      if record_exp(rec, rest) <= now then
        remove_message(k, ch, channel, seq, rec, rest)
        expired = expired + 1
      elseif attempts >= max_attempts then
        if dead_letter(k, ch, dl, channel, dlq, seq, rec, attempts, now, max_channels) == 'discarded' then
          discarded = discarded + 1
        else
          dead_lettered = dead_lettered + 1
        end
      else
        leased = leased + 1
        local nonce = string.sub(nonces, (leased - 1) * 22 + 1, leased * 22)
        local leased_rec = record_with_lease(rec, rest, attempts + 1, nonce)
        redis.call('HSET', ch.m, seq, leased_rec)
        history_note(rec, rest, 'd', attempts + 1, now)
        if from_queue then redis.call('ZREM', ch.q, seq) end
        redis.call('ZADD', ch.f, deadline, seq)
        out[#out + 1] = seq .. nonce
        out[#out + 1] = leased_rec
      end
    end
  end
end

local lowered = false
if leased > 0 then
  lowered = schedule(k.timers, channel, deadline)
end
lowered = min_due(lowered, history_schedule())
local backlog = redis.call('ZCARD', ch.q) + redis.call('ZCARD', ch.f)
return { backlog, out, lowered, discarded, dead_lettered, expired, receive_wait }
