-- The push destinations' circuit breaker threshold (failures in a row) and leasing (lua/destination_take.lua, and lua/destination_result.lua
-- after it records outcomes): prepended to the destination_* scripts only.
local DESTINATION_BREAKER_FAILURES = 20
local DESTINATION_LEASE_MARGIN_MS = 5000

-- Leases the messages a channel's destination may be sent now, within its flow control (see
-- destination_take.lua's header). k, ch: account and channel keys; dst, window: the
-- destination's keys; id: its id; max: most messages to lease (integer); nonces: max random
-- strings of 22 characters, concatenated; history_first: the index of the channel's history
-- keys in KEYS. Returns { status, wait_ms, {lease_id, record, attempt, ...}, lowered_due_ms
-- or false }.
local function destination_lease(k, ch, dst, window, channel, id, max, nonces, now, history_first)
  local d = redis.call('HMGET', dst, 'id', 'state', 'config', 'open_until', 'fails', 'hol')
  if d[1] ~= id then return { 'gone', 0, {}, false } end
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
  if (tonumber(d[5]) or 0) >= DESTINATION_BREAKER_FAILURES then
    slots = in_flight == 0 and 1 or 0
  end
  local wait = 0
  local status = 'idle'
  if conf.rate_limit ~= nil and conf.rate_limit ~= cjson.null then
    local period = conf.rate_limit.period_seconds * 1000
    -- starts are counted where they are taken, and reach the receiver after a delay that
    -- varies by up to tens of ms on a busy machine (the pods' event loops, the network):
    -- counted over a window 2 % longer than the period (at most 1 s longer), a receiver's
    -- own windows of the period see at most count despite that jitter; the long-run rate is
    -- up to 2 % under count
    local span = period + math.min(period / 50, 1000)
    redis.call('ZREMRANGEBYSCORE', window, '-inf', now - span)
    local used = redis.call('ZCARD', window)
    if conf.rate_limit.count - used < slots then
      slots = conf.rate_limit.count - used
      if slots <= 0 then
        local oldest = redis.call('ZRANGE', window, 0, 0, 'WITHSCORES')
        return { 'wait', math.max(1, tonumber(oldest[2]) + span - now), {}, false }
      end
    end
    -- spread over the period: the period in `parts` parts (count of them, at most 100), at
    -- most count / parts (rounded up) starts in any 90 % of a part. A window's worth leased at
    -- once would reach the receiver as one burst at each window's start, and the network's
    -- jitter would put parts of two bursts in one of its windows; 90 %: a take comes a few ms
    -- after the last one's wait ends, and the window above still caps the whole.
    local parts = math.min(conf.rate_limit.count, 100)
    local part = period / parts * 0.9
    local since = '(' .. (now - part)
    local spread = math.ceil(conf.rate_limit.count / parts)
      - redis.call('ZCOUNT', window, since, '+inf')
    if spread < slots then
      slots = spread
      if slots <= 0 then
        local first = redis.call('ZRANGEBYSCORE', window, since, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
        return { 'wait', math.max(1, tonumber(first[2]) + part - now), {}, false }
      end
    end
  end
  slots = math.min(slots, max)
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
    while #candidates < slots do
      local from_queue = queued_first(queued, i, ended, j)
      if from_queue == nil then break end
      if from_queue then
        candidates[#candidates + 1] = queued[i]; i = i + 2
      else
        candidates[#candidates + 1] = ended[j]; j = j + 2
      end
    end
  end

  local deadline = now + conf.timeout_ms + DESTINATION_LEASE_MARGIN_MS
  history_begin(k, channel, settings, history_first)
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
        local nonce = string.sub(nonces, (leased - 1) * 22 + 1, leased * 22)
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
end
