--[[
destination_take: lease the messages a channel's destination may be sent now, as a pull
does (a lease per message, deadline now + lease_ms), within its flow control, counted
atomically across every pod: at most parallelism - (leases in flight) messages, at most
rate_limit.count request starts in any period_seconds window, nothing while its circuit
breaker is open (then one probe at a time), nothing while it or its channel is paused or
it is disabled. With parallelism 1 the message at the head of the line (the one being
tried) is the only one leased until it is acknowledged or given up on. The record's own
attempts count is not changed (the destination counts its attempts itself, field
a:<uuid>), so the channel's max_attempts does not apply to the destination's deliveries.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the destination's channel
KEYS[13..16] destination keys: destination, attempts, window, dead
KEYS[17..19] history keys: h, hi, he of the channel (lua/lib/history.lua): a message past its
             retention ends there as expired
ARGV[1] channel: the channel id
ARGV[2] id: the destination's id
ARGV[3] max: most messages to lease in this call (integer)
ARGV[4] nonces: max random strings of 22 characters, concatenated
Returns: { status ('ok', 'idle' (paused, disabled, nothing to send), 'wait' (a window, the
           breaker or a retry), 'gone' (no such destination or channel)), wait_ms,
           {lease_id, record, attempt, ...}, lowered_due_ms or false }
Errors:  none
]]
local k = account_keys(1)
local ch = channel_keys(7)
local dst, window = KEYS[13], KEYS[15]
local channel = ARGV[1]
local now = now_ms()
local BREAKER_FAILURES = 20
local LEASE_MARGIN_MS = 5000

local d = redis.call('HMGET', dst, 'id', 'state', 'config', 'open_until', 'fails', 'hol')
if d[1] ~= ARGV[2] then return { 'gone', 0, {}, false } end
local cfg = redis.call('HGET', k.channels, channel)
if not cfg then return { 'gone', 0, {}, false } end
local settings = parse_settings(cfg)
if d[2] ~= 'active' or settings.paused then return { 'idle', 0, {}, false } end
local conf = cjson.decode(d[3])
local open_until = tonumber(d[4]) or 0
if open_until > now then return { 'wait', open_until - now, {}, false } end

local in_flight = redis.call('ZCOUNT', ch.f, '(' .. now, '+inf')
local slots = conf.parallelism - in_flight
-- A breaker that opened lets one probe through at a time, alone.
if (tonumber(d[5]) or 0) >= BREAKER_FAILURES then
  slots = in_flight == 0 and 1 or 0
end
local wait = 0
local status = 'idle'
if conf.rate_limit ~= nil and conf.rate_limit ~= cjson.null then
  local period = conf.rate_limit.period_seconds * 1000
  redis.call('ZREMRANGEBYSCORE', window, '-inf', now - period)
  local used = redis.call('ZCARD', window)
  if conf.rate_limit.count - used < slots then
    slots = conf.rate_limit.count - used
    if slots <= 0 then
      local oldest = redis.call('ZRANGE', window, 0, 0, 'WITHSCORES')
      return { 'wait', math.max(1, tonumber(oldest[2]) + period - now), {}, false }
    end
  end
end
slots = math.min(slots, tonumber(ARGV[3]))
if slots <= 0 then return { 'idle', 0, {}, false } end

-- The candidates, oldest-available first: queued messages whose time has come and ended
-- leases (a pod that died mid-request); with parallelism 1 only the head of the line.
local candidates = {}
local hol = d[6]
if conf.parallelism == 1 and hol and hol ~= '' then
  local seq, uuid = string.sub(hol, 1, 12), string.sub(hol, 13)
  local rec = redis.call('HGET', ch.m, seq)
  local _, _, rest
  if rec then _, _, rest = record_head(rec) end
  if rec and string.sub(rec, rest, rest + 21) == uuid then
    local at = tonumber(redis.call('ZSCORE', ch.q, seq) or redis.call('ZSCORE', ch.f, seq))
    if at and at <= now then
      candidates[1] = seq
    else
      return { 'wait', at and (at - now) or 1000, {}, false }
    end
  else
    redis.call('HDEL', dst, 'hol')
  end
end
if #candidates == 0 then
  local queued = redis.call('ZRANGEBYSCORE', ch.q, '-inf', now, 'WITHSCORES', 'LIMIT', 0, slots)
  local ended = redis.call('ZRANGEBYSCORE', ch.f, '-inf', now, 'WITHSCORES', 'LIMIT', 0, slots)
  local i, j = 1, 1
  while #candidates < slots and (i <= #queued or j <= #ended) do
    local from_queue
    if j > #ended then
      from_queue = true
    elseif i > #queued then
      from_queue = false
    else
      local qs, fs = tonumber(queued[i + 1]), tonumber(ended[j + 1])
      from_queue = qs < fs or (qs == fs and queued[i] < ended[j])
    end
    if from_queue then
      candidates[#candidates + 1] = queued[i]; i = i + 2
    else
      candidates[#candidates + 1] = ended[j]; j = j + 2
    end
  end
end

local deadline = now + conf.timeout_ms + LEASE_MARGIN_MS
history_begin(k, channel, settings, 17)
HIST.reason = 'e'
local out = {}
local leased = 0
for _, seq in ipairs(candidates) do
  if leased >= slots then break end
  local rec = redis.call('HGET', ch.m, seq)
  if not rec then
    redis.call('ZREM', ch.q, seq)
    redis.call('ZREM', ch.f, seq)
  else
    local attempts, _, rest = record_head(rec)
    if record_exp(rec, rest) <= now then
      remove_message(k, ch, channel, seq, rec, rest)
    else
      leased = leased + 1
      local nonce = string.sub(ARGV[4], (leased - 1) * 22 + 1, leased * 22)
      local uuid = string.sub(rec, rest, rest + 21)
      local attempt = redis.call('HINCRBY', dst, 'a:' .. uuid, 1)
      local leased_rec = record_with_lease(rec, rest, attempts, nonce)
      redis.call('HSET', ch.m, seq, leased_rec)
      redis.call('ZREM', ch.q, seq)
      redis.call('ZADD', ch.f, deadline, seq)
      if conf.rate_limit ~= nil and conf.rate_limit ~= cjson.null then
        redis.call('ZADD', window, now, seq .. nonce)
      end
      if conf.parallelism == 1 then redis.call('HSET', dst, 'hol', seq .. uuid) end
      out[#out + 1] = seq .. nonce
      out[#out + 1] = leased_rec
      out[#out + 1] = attempt
    end
  end
end
local lowered = false
if leased > 0 then
  status = 'ok'
  lowered = schedule(k.timers, channel, deadline)
end
lowered = min_due(lowered, history_schedule())
return { status, wait, out, lowered }
