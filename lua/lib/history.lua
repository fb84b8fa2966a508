-- Message history (docs/api/history.md), prepended after common.lua. A channel keeps it
-- while its named setting history_seconds is above 0; a script that may end or note a
-- message takes the channel's three history keys (history_keys(first): where they start):
--   h   hash: <id> -> 'L<seq>' while the message lives (its record is in the messages hash),
--              'E<record after the lease head>' once it ended; <id>:t -> its timeline;
--              '#bytes' -> the bytes ended records count toward the plan's storage
--   hi  zset: <id> -> received_at ms (the search index, newest first)
--   he  zset: <id> -> ms when the ended record goes (the sweeper deletes it then)
-- <id> is the message's uuid in 22 base64url characters. A timeline is entries joined by
-- ';', each 'kind,at_ms[,detail]': r received (entrance), d delivery (attempt), y retry
-- (delay ms, or 'lease' when a lease ran out), a ack, l dead-lettered (to the dead-letter
-- channel, '' when discarded), e expired, p purged. src/store/history.ts reads them.
-- With history off the only cost is reading the setting from the config already read.

local function history_keys(first)
  return { h = KEYS[first], i = KEYS[first + 1], e = KEYS[first + 2] }
end

-- A channel's history keys named from its channel keys (channel_keys), under the account's
-- hash tag: for a script that stores into several channels (send_routed.lua), whose KEYS
-- carry only their channel keys.
local function history_keys_of(ch)
  local base = string.sub(ch.q, 1, -2)
  return { h = base .. 'h', i = base .. 'hi', e = base .. 'he' }
end

-- Turns history on for this call when the channel's settings (parse_settings, or nil)
-- set history_seconds. k: account keys; first: the index of its history keys in KEYS, or
-- the keys themselves (history_keys_of).
local function history_begin(k, channel, settings, first)
  local seconds = settings and tonumber(settings.named.history_seconds)
  if not seconds or seconds <= 0 then
    HIST.on = false
    return
  end
  HIST.on, HIST.k, HIST.channel = true, k, channel
  HIST.ms, HIST.due = seconds * 1000, false
  HIST.keys = type(first) == 'table' and first or history_keys(first)
end

local function history_append(id, entry)
  local t = HIST.keys
  local timeline = redis.call('HGET', t.h, id .. ':t')
  if not timeline then return false end
  redis.call('HSET', t.h, id .. ':t', timeline .. ';' .. entry)
  return true
end

-- A message stored now (id: its uuid, 22 characters) at seq, through entrance.
local function history_received(id, seq, now, entrance)
  local t = HIST.keys
  redis.call('HSET', t.h, id, 'L' .. seq, id .. ':t', 'r,' .. now .. ',' .. entrance)
  redis.call('ZADD', t.i, now, id)
end

-- A note on a living message (rec: its record): 'd' delivery, 'y' retry.
local function history_note(rec, rest, kind, detail, now)
  if not HIST.on then return end
  history_append(string.sub(rec, rest, rest + 21), kind .. ',' .. now .. ',' .. detail)
end

-- The message ends (kind: a, l, e, p): its record is kept for history_seconds and counts
-- toward the plan's storage until then.
HIST.ended = function(rec, rest, kind, detail)
  local id = string.sub(rec, rest, rest + 21)
  local now = now_ms()
  if not history_append(id, kind .. ',' .. now .. ',' .. detail) then return end
  local t = HIST.keys
  -- a message redriven back after it ended here ends again: its record is kept (and
  -- charged) once, its timeline goes on
  local kept = redis.call('HGET', t.h, id)
  if not kept or string.sub(kept, 1, 1) ~= 'E' then
    local _, _, _, size = record_fields(rec, rest)
    redis.call('HSET', t.h, id, 'E' .. string.sub(rec, rest))
    redis.call('HINCRBY', t.h, '#bytes', size)
    if redis.call('EXISTS', HIST.k.account) == 1 then
      redis.call('HINCRBY', HIST.k.account, 'storage_bytes', size)
    end
  end
  local gone = now + HIST.ms
  redis.call('ZADD', t.e, gone, id)
  -- the sweep deletes it within a second of gone (CLEANUP_GRAIN_MS)
  HIST.due = min_due(HIST.due, cleanup_due(gone))
end

-- After the ends of a call: the channel's timer at the first record that goes. Returns the
-- lowered account due time or false (schedule).
local function history_schedule()
  if not HIST.on or not HIST.due then return false end
  return schedule(HIST.k.timers, HIST.channel, HIST.due)
end

-- Deletes ended records whose time has come (at most limit). Returns how many, and
-- whether more remain.
local function history_sweep(now, limit)
  local t = HIST.keys
  local gone = redis.call('ZRANGEBYSCORE', t.e, '-inf', now, 'LIMIT', 0, limit)
  local freed = 0
  for _, id in ipairs(gone) do
    local rec = redis.call('HGET', t.h, id)
    if rec and string.sub(rec, 1, 1) == 'E' then
      local _, _, _, size = record_fields(rec, 2)
      freed = freed + size
    end
    redis.call('HDEL', t.h, id, id .. ':t')
    redis.call('ZREM', t.i, id)
    redis.call('ZREM', t.e, id)
  end
  if freed ~= 0 then
    redis.call('HINCRBY', t.h, '#bytes', -freed)
    if redis.call('EXISTS', HIST.k.account) == 1 then
      redis.call('HINCRBY', HIST.k.account, 'storage_bytes', -freed)
    end
  end
  if redis.call('HLEN', t.h) <= 1 and redis.call('ZCARD', t.i) == 0 then
    redis.call('UNLINK', t.h, t.i, t.e)
  end
  return #gone, #gone == limit
end

-- Deletes a channel's whole history (h, hi, he keys) and frees its storage.
local function history_drop(k, t)
  local bytes = tonumber(redis.call('HGET', t.h, '#bytes') or '0')
  redis.call('UNLINK', t.h, t.i, t.e)
  if bytes ~= 0 and redis.call('EXISTS', k.account) == 1 then
    redis.call('HINCRBY', k.account, 'storage_bytes', -bytes)
  end
end
