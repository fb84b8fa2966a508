-- Message history (docs/api/history.md), prepended after common.lua. A channel keeps it
-- while its named setting history_seconds is above 0; a script that may end or note a
-- message takes the channel's three history keys (history_keys(first): where they start):
--   h   hash: <id> -> 'L<seq>|<timeline>' while the message lives (its record is in the
--              messages hash), 'E<timeline>|<record from its content type on>' once it ended
--              (the record's uuid, sent and expiry are the field's id and the index's score,
--              so they are not kept twice); '#bytes' -> the bytes ended records count toward
--              the plan's storage
--   hi  zset: <id> -> received_at ms (the search index, newest first)
--   he  zset: <id> -> ms when the ended record goes (the sweeper deletes it then)
-- <id> is the message's uuid in 22 base64url characters. One field per message: a record's
-- hash field costs about 90 bytes of Redis memory apart from its value. A timeline is
-- entries joined by ';', each '<kind><ms after received_at>[,detail]': r received (entrance),
-- d delivery (attempt), D a push destination's attempt (attempt:status:duration_ms:outcome),
-- y retry (delay ms, or 'lease' when a lease ran out), a ack, l dead-lettered (to the
-- dead-letter channel, '' when discarded), e expired, p purged. No entry holds '|'.
-- src/store/history.ts reads them. With history off the only cost is reading the setting
-- from the config already read.

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

-- A timeline entry: kind, ms after the message was received (sent: its record's sent time,
-- which is its received_at), and a detail when there is one.
local function history_entry(kind, at, sent, detail)
  if detail == '' then return kind .. (at - sent) end
  return kind .. (at - sent) .. ',' .. detail
end

-- Appends an entry to the timeline in the kept value v (living or ended).
local function history_with(v, entry)
  if string.sub(v, 1, 1) == 'L' then return v .. ';' .. entry end
  local bar = string.find(v, '|', 1, true)
  return string.sub(v, 1, bar - 1) .. ';' .. entry .. string.sub(v, bar)
end

-- The sent time (ms) of the record rec whose fixed part starts at rest.
local function record_sent(rec, rest)
  return tonumber(string.sub(rec, rest + 22, rest + 30), 36)
end

-- A message stored now (id: its uuid, 22 characters) at seq, through entrance.
local function history_received(id, seq, now, entrance)
  local t = HIST.keys
  redis.call('HSET', t.h, id, 'L' .. seq .. '|r0,' .. entrance)
  redis.call('ZADD', t.i, now, id)
end

-- A note on a living message (rec: its record): 'd' delivery, 'D' destination attempt,
-- 'y' retry.
local function history_note(rec, rest, kind, detail, now)
  if not HIST.on then return end
  local t = HIST.keys
  local id = string.sub(rec, rest, rest + 21)
  local v = redis.call('HGET', t.h, id)
  if not v then return end
  redis.call('HSET', t.h, id, history_with(v, history_entry(kind, now, record_sent(rec, rest), detail)))
end

-- The bytes an ended value v counts (its record starts at bar + 1, after the timeline):
-- record_fields reads the size from the content type on, at rest + 40.
local function history_kept_size(v, bar)
  local _, _, _, size = record_fields(v, bar + 1 - 40)
  return size
end

-- The message ends (kind: a, l, e, p): its record is kept for history_seconds and counts
-- toward the plan's storage until then.
HIST.ended = function(rec, rest, kind, detail)
  local t = HIST.keys
  local id = string.sub(rec, rest, rest + 21)
  local v = redis.call('HGET', t.h, id)
  if not v then return end
  local now = now_ms()
  local entry = history_entry(kind, now, record_sent(rec, rest), detail)
  if string.sub(v, 1, 1) == 'L' then
    local bar = string.find(v, '|', 1, true)
    local _, _, _, size = record_fields(rec, rest)
    redis.call('HSET', t.h, id, 'E' .. string.sub(v, bar + 1) .. ';' .. entry .. '|' ..
      string.sub(rec, rest + 40))
    redis.call('HINCRBY', t.h, '#bytes', size)
    if redis.call('EXISTS', HIST.k.account) == 1 then
      redis.call('HINCRBY', HIST.k.account, 'storage_bytes', size)
    end
  else
    -- a message redriven back after it ended here ends again: its record is kept (and
    -- charged) once, its timeline goes on
    redis.call('HSET', t.h, id, history_with(v, entry))
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
    local v = redis.call('HGET', t.h, id)
    if v and string.sub(v, 1, 1) == 'E' then
      freed = freed + history_kept_size(v, string.find(v, '|', 1, true))
    end
    redis.call('HDEL', t.h, id)
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
