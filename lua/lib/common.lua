-- Shared helpers, prepended to every script by the loader (src/store/scripts/index.ts).
--
-- Key layout shared by the scripts (built by src/store/keys.ts, all under {account}):
--   account keys  KEYS[1..6]:  account (hash), channels (hash), timers (zset), usage (hash),
--                              events (shard channel), tokens (hash token id -> json)
--   channel keys  6 in a row:  q (zset seq -> available ms), f (zset seq -> lease deadline ms),
--                              m (hash seq -> record, plus bookkeeping fields, below),
--                              x (zset of runs and expiry minutes, below),
--                              d (hash dedup_id -> uuid), dx (zset dedup_id -> expiry ms)
-- (docs/design.md, "Storage layout", explains the why.)
--
-- seq is the message's place in its channel: 12 hex digits of a per-channel counter. The
-- messages hash also holds
--   s           '<last seq>|<expiry ms of the last message appended>|<1 while its run lasts>'
--   e<minute>   live messages whose expiry falls in that minute (floor(ms / 60000))
-- and both keys m and x are removed as soon as the channel holds no message.
-- A run is a range of consecutive seqs whose expiries never decrease. Each run is one
-- member of x: its cursor (the seq of its first message not yet known to be gone) scored
-- by a lower bound of the expiries of its messages (the cursor message's expiry, exact
-- unless a walk ran out of budget). A message whose expiry is below its predecessor's
-- (retention shortened, or moved in by dead-lettering or redrive with its old expiry)
-- starts a new run. A run ends where the next run's cursor, or the last seq, is.
-- Each expiry minute is a member 'e<minute>' of x scored -minute (negative: runs are
-- read with the scores 0..+inf, minutes with -inf..0).
--
-- A message record is one string in the messages hash, field = seq:
--   attempts|nonce|<uuid 22><sent 9><expiry 9><content type 1><meta_len>|<metadata json><body json>
-- or, for a dead-lettered message or one whose size is not the payload's byte length:
--   attempts|nonce|<uuid 22><sent 9><expiry 9><content type 1><meta_len>:src|src_attempts|size|<...>
-- attempts and nonce change with every lease; the rest is fixed at send. uuid is the 16 bytes
-- of the id in base64url, sent and expiry are ms in base 36 (9 digits, zero-padded), the
-- content type is one letter (CONTENT_CODES), meta_len is the metadata's length in base 36
-- as the service's JavaScript reader counts it (UTF-16 units). src and src_attempts (source
-- channel, deliveries there) are set only on a dead-lettered message; size is the bytes the
-- message counts for storage, written only when it is not the payload's length (webhook
-- messages count their raw body). src/store/records.ts reads records for the API.
-- A channel's config (channels hash, field = channel id):
--   max_attempts|dedup_window_s|dead_letter_channel|created_ms[|paused|visibility_ms|delay_ms|retention_ms[|receive_wait_ms[|name=value...]]]
-- The bracketed settings tail is absent on channels never given a setting; in it,
-- paused is 0 or 1 and an empty number means "not set: the default applies".
-- receive_wait_ms (the SQS endpoint's default WaitTimeSeconds) is absent on older tails.
-- Named settings follow, sorted by name ([%w_]+ names, values without '|'); a named
-- setting that is absent is not set. The features that own them: src/store/channelConfig.ts.

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function account_keys(first)
  return { account = KEYS[first], channels = KEYS[first + 1], timers = KEYS[first + 2],
           usage = KEYS[first + 3], events = KEYS[first + 4], tokens = KEYS[first + 5] }
end

-- The channel's message-group keys (docs/api/groups.md) are named after its queue key
-- (rq:{a}:c:<channel>:q without the final q), so they share the account's hash tag:
--   gn  hash group -> number of the group's messages in the channel (any state)
--   gl  hash group -> number of its messages leased now (strict order only)
--   gw  zset group -> ms: groups whose head came back from a lease (retry or lease end)
--       and was not delivered again yet (strict order only)
--   ga  hash seq -> ms the grouped message is available from
--   g:<group>  zset seq -> seq as a number: the group's messages in send order (strict:
--       every message of the group; fair: those not leased)
--   sn  string: the channel's FIFO sequence counter (never reset)
-- A group's head (its first message) is in q, scored by when it became available, while the
-- group is not locked (strict: none of its messages leased); its other messages are in no
-- queue until a pull takes them after the head.
local function channel_keys(first)
  local q = KEYS[first]
  local base = string.sub(q, 1, -2)
  return { q = q, f = KEYS[first + 1], m = KEYS[first + 2], x = KEYS[first + 3],
           d = KEYS[first + 4], dx = KEYS[first + 5],
           gn = base .. 'gn', gl = base .. 'gl', gw = base .. 'gw', ga = base .. 'ga',
           g = base .. 'g:', sn = base .. 'sn' }
end

local function record_head(rec)
  local attempts, nonce, rest = string.match(rec, '^(%d+)|([^|]*)|()')
  return tonumber(attempts), nonce, rest
end

local B36 = '0123456789abcdefghijklmnopqrstuvwxyz'
-- A non-negative integer in base 36, zero-padded to width digits when given.
local function base36(n, width)
  local s = ''
  repeat
    local d = n % 36
    s = string.sub(B36, d + 1, d + 1) .. s
    n = (n - d) / 36
  until n == 0
  if width then s = string.rep('0', width - #s) .. s end
  return s
end

-- One letter per content type (CONTENT_TYPES in src/schemas/requests.ts; read back in
-- src/store/records.ts).
local CONTENT_CODES = { json = 'j', text = 't', bytes = 'b', v8 = 'v' }

-- The fixed part of a record after its lease head (rest = its position): uuid, sent, expiry.
local TIME_DIGITS = 9
local function record_exp(rec, rest)
  return tonumber(string.sub(rec, rest + 31, rest + 39), 36)
end

-- uuid (compact), ts, exp, size (numbers), content type code, meta_len (base 36), src,
-- src_attempts, payload position, group id ('' for none), FIFO sequence number ('' for none)
local function record_fields(rec, rest)
  local mlen, mark, payload = string.match(rec, '^(%w+)([|:;])()', rest + 41)
  local src, src_attempts, size, group, fifo_seq = '', '', '', '', ''
  if mark == ':' then
    src, src_attempts, size, payload = string.match(rec, '^([^|]*)|(%d*)|(%d*)|()', payload)
  elseif mark == ';' then
    src, src_attempts, size, group, fifo_seq, payload =
      string.match(rec, '^([^|]*)|(%d*)|(%d*)|([^|]*)|(%d*)|()', payload)
  end
  return string.sub(rec, rest, rest + 21), tonumber(string.sub(rec, rest + 22, rest + 30), 36),
    record_exp(rec, rest), tonumber(size) or (#rec - payload + 1), string.sub(rec, rest + 40, rest + 40),
    mlen, src, src_attempts, payload, group, fifo_seq
end

-- The group id of a record ('' for none).
local function record_group(rec)
  local _, _, rest = record_head(rec)
  local _, _, _, _, _, _, _, _, _, group = record_fields(rec, rest)
  return group
end

-- The record tail after meta_len: '|' alone unless the message is dead-lettered, counts
-- another size than its payload's length, or has a group or a FIFO sequence number
-- (';src|src_attempts|size|group|fifo_seq|').
local function record_extras(src, src_attempts, size, payload_len, group, fifo_seq)
  group, fifo_seq = group or '', fifo_seq or ''
  local size_text = size == payload_len and '' or size
  if group ~= '' or fifo_seq ~= '' then
    return ';' .. src .. '|' .. src_attempts .. '|' .. size_text .. '|' .. group .. '|' .. fifo_seq .. '|'
  end
  if src == '' and size == payload_len then return '|' end
  return ':' .. src .. '|' .. src_attempts .. '|' .. size_text .. '|'
end

local function record_with_lease(rec, rest, attempts, nonce)
  return attempts .. '|' .. nonce .. '|' .. string.sub(rec, rest)
end

-- max_attempts, dedup_window_s, dead_letter_channel, created_ms, settings tail ('' or '|...')
local function parse_config(cfg)
  local max_attempts, dedup_window, dlq, created, tail = string.match(cfg, '^(%d+)|(%d+)|([^|]*)|(%d+)(.*)$')
  return tonumber(max_attempts), tonumber(dedup_window), dlq, tonumber(created), tail
end

local function format_config(max_attempts, dedup_window, dlq, created, tail)
  return max_attempts .. '|' .. dedup_window .. '|' .. dlq .. '|' .. created .. (tail or '')
end

-- The channel settings of a config: { paused = bool, visibility_ms, delay_ms, retention_ms,
-- receive_wait_ms } (each number nil when not set), and named = { name -> value text }, the
-- named settings that follow them ('|name=value' each; a feature adds its own name).
local function parse_settings(cfg)
  local _, _, _, _, tail = parse_config(cfg)
  local paused, vt, delay, retention, wait, rest =
    string.match(tail, '^|([01])|(%d*)|(%d*)|(%d*)|?(%d*)(.*)$')
  local named = {}
  if rest and rest ~= '' then
    for name, value in string.gmatch(rest, '|([%w_]+)=([^|]*)') do named[name] = value end
  end
  return { paused = paused == '1', visibility_ms = tonumber(vt), delay_ms = tonumber(delay),
           retention_ms = tonumber(retention), receive_wait_ms = tonumber(wait), named = named }
end

local function format_settings(s)
  local out = '|' .. (s.paused and '1' or '0') .. '|' .. (s.visibility_ms or '') .. '|' ..
    (s.delay_ms or '') .. '|' .. (s.retention_ms or '') .. '|' .. (s.receive_wait_ms or '')
  local names = {}
  for name in pairs(s.named or {}) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do out = out .. '|' .. name .. '=' .. s.named[name] end
  return out
end

local DEFAULT_MAX_ATTEMPTS = 3
local DEFAULT_DEDUP_WINDOW_S = 300
-- The service's visibility timeout when neither the pull nor the channel sets one
-- (LIMITS.defaultVisibilityMs in src/schemas/requests.ts).
local DEFAULT_VISIBILITY_MS = 30000

-- Lowers the channel's timer to due_ms. Returns due_ms when that lowered the
-- account's earliest timer (the caller then lowers the global due index), else false.
local function schedule(timers_key, channel, due_ms)
  local first = redis.call('ZRANGE', timers_key, 0, 0, 'WITHSCORES')
  redis.call('ZADD', timers_key, 'LT', due_ms, channel)
  if first[2] == nil or due_ms < tonumber(first[2]) then
    return due_ms
  end
  return false
end

local function min_due(a, b)
  if a == false then return b end
  if b == false then return a end
  return math.min(a, b)
end

-- Clean-up-only due times (retention ends, dedup-window ends) need no
-- millisecond precision: rounding them up to whole seconds folds a stream of
-- distinct instants into at most one sweep per second per account.
local CLEANUP_GRAIN_MS = 1000
local function cleanup_due(ms)
  if ms == false then return false end
  return math.ceil(ms / CLEANUP_GRAIN_MS) * CLEANUP_GRAIN_MS
end

-- Coalesced new_message fan-out. The account hash keeps, per channel, the field
-- 'n:<channel>' = '<last publish ms>|<1 when an announcement is pending>'.
-- A pending announcement is published by the pod that caused it when the
-- window ends (announce_channel.lua), or by the sweeper FANOUT_BACKUP_MS later.
local FANOUT_BACKUP_MS = 1000

-- The channel's last publish time and whether an announcement is pending.
local function fanout_state(k, channel)
  local state = redis.call('HGET', k.account, 'n:' .. channel)
  if not state then return 0, false end
  local last, pending = string.match(state, '^(%d+)|(%d)$')
  return tonumber(last), pending == '1'
end

-- A paused channel announces nothing until it is resumed (channel_configure.lua
-- then announces once), whatever made messages available.
local function is_paused(k, channel)
  local cfg = redis.call('HGET', k.channels, channel)
  return cfg ~= false and cfg ~= nil and parse_settings(cfg).paused
end

-- True when every message of queue q became available after the channel's last
-- announcement (at last ms), or q is empty: its consumers took all they were told
-- of. q scores are availability times; leased messages are elsewhere.
local function drained_since(q, last)
  local first = redis.call('ZRANGE', q, 0, 0, 'WITHSCORES')
  return first[2] == nil or tonumber(first[2]) > last
end

-- How many of the channel's messages a pull could lease now: queued ones whose time has
-- come, and leases that ended (ch: its channel keys).
local function available_count(ch, now)
  return redis.call('ZCOUNT', ch.q, '-inf', now) + redis.call('ZCOUNT', ch.f, '-inf', now)
end

-- Which of two lists of candidates comes next, oldest-available first: queued (ZRANGEBYSCORE
-- of the queue WITHSCORES) and ended (of the leases whose time ran out), a tie going to the
-- lower seq; i, j: the next index in each. Returns true (queued), false (ended) or nil when
-- both are used up. Shared by a pull and a destination's take.
local function queued_first(queued, i, ended, j)
  if i > #queued and j > #ended then return nil end
  if j > #ended then return true end
  if i > #queued then return false end
  local qs, fs = tonumber(queued[i + 1]), tonumber(ended[j + 1])
  return qs < fs or (qs == fs and queued[i] < ended[j])
end

-- Publishes new_message for the channel now (used where coalescing is not worth it).
-- Tells subscribers (WebSocket clients, long polls on every pod) that count messages
-- became available: 'n <channel> <count>'; each pod wakes as many of the channel's long
-- polls as that (src/store/waiters.ts). Silent for a paused channel (and nothing stays
-- pending for it).
local function publish_now(k, channel, now, count)
  if not is_paused(k, channel) then
    redis.call('SPUBLISH', k.events, 'n ' .. channel .. ' ' .. count)
  end
  if redis.call('EXISTS', k.account) == 1 then
    redis.call('HSET', k.account, 'n:' .. channel, now .. '|0')
  end
end

-- count messages became available on the channel. Published at once when the channel
-- published nothing in the last window_ms (the first event of a burst), or when
-- its consumers had drained it (q given: its queue key; no message available is
-- as old as the last announcement, so they wait for exactly this event).
-- Otherwise every consumer was already told of messages still there, so the
-- channel is marked pending: one trailing event at the window's end, run by the
-- calling pod, its timer lowered as the backup. Returns { ms until the pending
-- announcement is due or false, the lowered account due time or false }.
local function announce(k, channel, now, window_ms, q, count)
  if is_paused(k, channel) then return false, false end
  local last = fanout_state(k, channel)
  if now >= last + window_ms or (q and drained_since(q, last)) then
    publish_now(k, channel, now, count)
    return false, false
  end
  if redis.call('EXISTS', k.account) == 0 then return false, false end
  redis.call('HSET', k.account, 'n:' .. channel, last .. '|1')
  local due = last + window_ms
  return due - now, schedule(k.timers, channel, due + FANOUT_BACKUP_MS)
end

-- The channel's sequence state (field SEQ_FIELD of its messages hash): the last seq
-- given, the expiry of the message it was given to, and whether the run that message
-- joined still has a cursor (while it does, a message expiring no earlier joins it too).
local SEQ_FIELD = 's'
local function seq_hex(n)
  return string.format('%012x', n)
end

local function seq_state(ch)
  local s = redis.call('HGET', ch.m, SEQ_FIELD)
  if not s then return { last = 0, exp = 0, open = false } end
  local last, exp, open = string.match(s, '^(%d+)|(%d+)|([01])$')
  return { last = tonumber(last), exp = tonumber(exp), open = open == '1' }
end

local function save_seq_state(ch, st)
  redis.call('HSET', ch.m, SEQ_FIELD,
    string.format('%d|%d|%s', st.last, st.exp, st.open and '1' or '0'))
end

-- The next seq of the channel, for a message expiring at exp (ms). It joins the last
-- run unless its expiry is below the previous message's or that run is used up; then
-- it starts a run. The caller saves st (save_seq_state) when done.
local function append_seq(ch, st, exp)
  st.last = st.last + 1
  local seq = seq_hex(st.last)
  if not st.open or exp < st.exp then
    redis.call('ZADD', ch.x, exp, seq)
    st.open = true
  end
  st.exp = exp
  return seq
end

-- Adds delta to the count of the channel's messages expiring in exp's minute.
local EXPIRY_MINUTE_MS = 60000
local function count_expiry(ch, exp, delta)
  local minute = math.floor(exp / EXPIRY_MINUTE_MS)
  local field = 'e' .. minute
  local count = redis.call('HINCRBY', ch.m, field, delta)
  if count <= 0 then
    redis.call('HDEL', ch.m, field)
    redis.call('ZREM', ch.x, field)
  elseif count == delta then
    redis.call('ZADD', ch.x, -minute, field)
  end
end

-- How many of the channel's messages expire in a minute that starts at or before until_ms.
local function expiring_until(ch, until_ms)
  local minutes = redis.call('ZRANGEBYSCORE', ch.x, -math.floor(until_ms / EXPIRY_MINUTE_MS), '(0')
  if #minutes == 0 then return 0 end
  local total = 0
  for _, count in ipairs(redis.call('HMGET', ch.m, unpack(minutes))) do
    total = total + (tonumber(count) or 0)
  end
  return total
end

-- The number of messages in the channel: its messages hash less the bookkeeping fields.
local function message_count(ch)
  local fields = redis.call('HLEN', ch.m)
  if fields == 0 then return 0 end
  return fields - 1 - redis.call('ZCOUNT', ch.x, '-inf', '(0')
end

-- The run that expires first: its cursor and score, or nil.
local function first_run(ch)
  local r = redis.call('ZRANGEBYSCORE', ch.x, 0, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if not r[1] then return nil end
  return r[1], tonumber(r[2])
end

-- Send time (ms) of the channel's oldest message (the first to expire), or false when empty.
-- Its run's cursor is on it unless a walk ran out of budget; then the next few seqs are read.
local OLDEST_SCAN = 100
local function oldest_sent_ms(ch)
  local cursor = first_run(ch)
  if not cursor then return false end
  local n = tonumber(cursor, 16)
  for i = 0, OLDEST_SCAN - 1 do
    local rec = redis.call('HGET', ch.m, seq_hex(n + i))
    if rec then
      local _, _, rest = record_head(rec)
      local _, ts = record_fields(rec, rest)
      return ts
    end
  end
  return false
end

-- History hooks (lua/lib/history.lua fills them in; off unless the script's channel sets
-- history_seconds): ended(rec, rest, kind, detail, now) keeps an ending message's record.
-- reason: the timeline kind remove_message notes ('a' ack, 'e' expired).
local HIST = { on = false, reason = 'a' }

-- Message groups (docs/api/groups.md; keys in channel_keys) -----------------------------

-- 'strict' (the default) or 'fair': the channel's group_order setting, read once per call.
local group_modes = {}
local function group_mode(k, channel)
  local mode = group_modes[channel]
  if mode == nil then
    local cfg = redis.call('HGET', k.channels, channel)
    mode = (cfg and parse_settings(cfg).named.group_order == 'fair') and 'fair' or 'strict'
    group_modes[channel] = mode
  end
  return mode
end

local function seq_number(seq)
  return tonumber(seq, 16)
end

-- Puts the group's head (its first message) in q, scored by when it is available (its own
-- time, not before since when given). Returns that score, or false when the group is empty.
local function group_show(ch, group, since)
  local head = redis.call('ZRANGE', ch.g .. group, 0, 0)[1]
  if not head then return false end
  local at = tonumber(redis.call('HGET', ch.ga, head) or '0')
  if since and since > at then at = since end
  redis.call('ZADD', ch.q, at, head)
  return at
end

-- A grouped message joins its channel (sent or moved in), available from avail (ms).
-- It goes to q only as the head of a group that had no message; a send never unlocks.
-- Returns true when it went to q.
local function group_added(ch, group, seq, avail)
  redis.call('HINCRBY', ch.gn, group, 1)
  redis.call('HSET', ch.ga, seq, avail)
  local key = ch.g .. group
  redis.call('ZADD', key, seq_number(seq), seq)
  if redis.call('ZCARD', key) == 1 and redis.call('HEXISTS', ch.gl, group) == 0 then
    redis.call('ZADD', ch.q, avail, seq)
    return true
  end
  return false
end

-- A grouped message leaves its channel (deleted or moved out); was_leased, was_queued: it
-- was in f, in q. When that unlocks its group (strict: its last leased message) or it was
-- the head shown in q, the next head is shown, available from now at the earliest.
-- Returns the shown head's score, or false.
local function group_removed(k, ch, channel, group, seq, was_leased, was_queued, now)
  redis.call('HDEL', ch.ga, seq)
  local key = ch.g .. group
  redis.call('ZREM', key, seq)
  if redis.call('HINCRBY', ch.gn, group, -1) <= 0 then
    redis.call('HDEL', ch.gn, group)
    redis.call('HDEL', ch.gl, group)
    redis.call('ZREM', ch.gw, group)
    redis.call('DEL', key)
    return false
  end
  local show = was_queued
  if was_queued then redis.call('ZREM', ch.gw, group) end
  if was_leased and group_mode(k, channel) == 'strict' then
    if redis.call('HINCRBY', ch.gl, group, -1) <= 0 then
      redis.call('HDEL', ch.gl, group)
      show = true
    end
  end
  if show and redis.call('HEXISTS', ch.gl, group) == 0 then return group_show(ch, group, now) end
  return false
end

-- A grouped message's lease ended at `at` (ms: retried, released or run out); the message
-- is available again from avail. strict: it stays in its group, and once none of the
-- group's messages is leased the head (its first message: this one or an earlier one) is
-- shown again, not before `at`, and the group waits for that retry (gw). fair: it rejoins
-- its group. Returns the shown head's score, or false.
local function group_lease_ended(k, ch, channel, group, seq, avail, at)
  redis.call('ZREM', ch.f, seq)
  redis.call('HSET', ch.ga, seq, avail)
  local key = ch.g .. group
  if group_mode(k, channel) == 'fair' then
    redis.call('ZADD', key, seq_number(seq), seq)
    if redis.call('ZCARD', key) == 1 then return group_show(ch, group, at) end
    return false
  end
  if redis.call('HINCRBY', ch.gl, group, -1) > 0 then return false end
  redis.call('HDEL', ch.gl, group)
  local shown = group_show(ch, group, at)
  if shown then redis.call('ZADD', ch.gw, shown, group) end
  return shown
end

-- Deletes a message's record and queue entries and frees its storage (group: its group id,
-- '' for none; rec, rest: the record, for the channel's history when it keeps one, noted
-- as kind or HIST.reason). Returns the score of its group's next head when that was shown,
-- else false.
local function delete_record(k, ch, channel, seq, exp, size, group, rec, rest, kind)
  if HIST.on and rec then HIST.ended(rec, rest, kind or HIST.reason, '') end
  redis.call('HDEL', ch.m, seq)
  local was_queued = redis.call('ZREM', ch.q, seq) == 1
  local was_leased = redis.call('ZREM', ch.f, seq) == 1
  count_expiry(ch, exp, -1)
  redis.call('HINCRBY', k.account, 'storage_bytes', -size)
  redis.call('HINCRBY', k.usage, channel, -size)
  if group and group ~= '' then
    return group_removed(k, ch, channel, group, seq, was_leased, was_queued, now_ms())
  end
  return false
end

-- Walks the run whose cursor is seq (nothing when seq is no cursor) forward over the
-- messages that are gone and, when expire is set, deletes those whose expiry is at or
-- before now. It stops at the first other message (whose expiry becomes the run's score),
-- at the next run's cursor or past the last seq (the run is used up and removed), or
-- after budget seqs (the cursor waits there with the old score, still a lower bound).
-- gone: the message at seq itself is known to be gone. Each seq is passed once, so the
-- walks cost O(1) per message over its life.
-- Returns the number of messages deleted and of seqs visited.
local function walk_run(k, ch, channel, seq, now, budget, expire, gone)
  local score = redis.call('ZSCORE', ch.x, seq)
  if not score then return 0, 0 end
  redis.call('ZREM', ch.x, seq)
  local first = tonumber(seq, 16)
  local n = gone and first + 1 or first
  local st = nil
  local deleted = 0
  for step = 0, budget do
    local at = seq_hex(n)
    local rec = redis.call('HGET', ch.m, at)
    local exp, size, group, rest, _
    if rec then
      _, _, rest = record_head(rec)
      _, _, exp, size, _, _, _, _, _, group = record_fields(rec, rest)
      if not expire or exp > now then
        redis.call('ZADD', ch.x, 'LT', exp, at)
        return deleted, step + 1
      end
    else
      st = st or seq_state(ch)
      if n > st.last then
        st.open = false
        save_seq_state(ch, st)
        return deleted, step
      end
    end
    if n ~= first and redis.call('ZSCORE', ch.x, at) then return deleted, step end
    if step == budget then
      redis.call('ZADD', ch.x, 'LT', score, at)
      return deleted, step
    end
    if rec then
      delete_record(k, ch, channel, at, exp, size, group, rec, rest, 'e')
      deleted = deleted + 1
    end
    n = n + 1
  end
end

-- Once the messages hash holds nothing but SEQ_FIELD, the channel holds no message:
-- its messages hash and runs go (stale cursors included), and its seqs start again.
local function drop_if_empty(ch)
  if redis.call('HLEN', ch.m) == 1 then
    redis.call('UNLINK', ch.m, ch.x)
  end
end

-- How far one removal walks its run's cursor before leaving the rest to the sweeper.
local WALK_BUDGET = 1000

-- Removes a message (record at rest as read by record_head) from its channel and frees
-- its storage. Returns the score of its group's next head when that was shown, else false.
local function remove_message(k, ch, channel, seq, rec, rest)
  local _, _, exp, size, _, _, _, _, _, group = record_fields(rec, rest)
  local shown = delete_record(k, ch, channel, seq, exp, size, group, rec, rest)
  walk_run(k, ch, channel, seq, 0, WALK_BUDGET, false, true)
  drop_if_empty(ch)
  return shown
end

-- Walks on the first run's cursor when it waits on a message that is gone (a walk ran out
-- of budget there), so that the oldest message and the next expiry read from it are exact
-- again after a few calls rather than when the sweeper reaches that run.
local function settle_first_run(k, ch, channel)
  local cursor = first_run(ch)
  if cursor and redis.call('HEXISTS', ch.m, cursor) == 0 then
    walk_run(k, ch, channel, cursor, 0, WALK_BUDGET, false, true)
    drop_if_empty(ch)
  end
end

-- Creates a channel entry if missing. Returns true if the channel exists
-- afterwards, false if creating it would pass max_channels or the account is
-- being deleted (a channel created then would outlive the account's keys).
local function ensure_channel(k, channel, max_channels, now)
  if redis.call('HEXISTS', k.channels, channel) == 1 then
    return true
  end
  if redis.call('HLEN', k.channels) >= max_channels or redis.call('EXISTS', k.account) == 0 then
    return false
  end
  redis.call('HSET', k.channels, channel,
    format_config(DEFAULT_MAX_ATTEMPTS, DEFAULT_DEDUP_WINDOW_S, '', now))
  return true
end

-- A message record as it is when moved to another channel: attempts 0, no
-- lease, the given source mark (src, src_attempts); everything else kept.
-- Returns the record, its expiry and its size.
local function moved_record(rec, src, src_attempts)
  local _, _, rest = record_head(rec)
  local _, _, exp, size, _, mlen, _, _, payload, group, fifo_seq = record_fields(rec, rest)
  return '0||' .. string.sub(rec, rest, rest + 40) .. mlen ..
    record_extras(src, src_attempts, size, #rec - payload + 1, group, fifo_seq) ..
    string.sub(rec, payload), exp, size, group
end

-- Moves message seq from one channel to another, available now, keeping its
-- expiry; its bytes move from one channel's usage to the other's. It gets a new seq
-- in the other channel (the end of its runs).
-- A grouped message (group ~= '') leaves its group and joins the same group in the other channel.
local function move_message(k, from, to, from_channel, to_channel, seq, record, exp, size, now, group)
  redis.call('HDEL', from.m, seq)
  local was_queued = redis.call('ZREM', from.q, seq) == 1
  local was_leased = redis.call('ZREM', from.f, seq) == 1
  count_expiry(from, exp, -1)
  if group and group ~= '' then
    local shown = group_removed(k, from, from_channel, group, seq, was_leased, was_queued, now)
    if shown and shown <= now then publish_now(k, from_channel, now, 1) end
  end
  walk_run(k, from, from_channel, seq, 0, WALK_BUDGET, false, true)
  drop_if_empty(from)
  local st = seq_state(to)
  local moved = append_seq(to, st, exp)
  save_seq_state(to, st)
  redis.call('HSET', to.m, moved, record)
  if group and group ~= '' then
    group_added(to, group, moved, now)
  else
    redis.call('ZADD', to.q, now, moved)
  end
  count_expiry(to, exp, 1)
  redis.call('HINCRBY', k.usage, from_channel, -size)
  redis.call('HINCRBY', k.usage, to_channel, size)
end

-- Ends a message's life in its channel after its last delivery: moves it to the
-- dead-letter channel when one is configured (and exists or can be created),
-- otherwise discards it. dl = keys of the dead-letter channel, or nil.
-- Returns 'dead_lettered' or 'discarded'.
local function dead_letter(k, ch, dl, channel, dlq, seq, rec, attempts, now, max_channels)
  local _, _, rest = record_head(rec)
  if dlq ~= '' and dl ~= nil and ensure_channel(k, dlq, max_channels, now) then
    if HIST.on then HIST.ended(rec, rest, 'l', dlq) end
    local moved, exp, size, group = moved_record(rec, channel, attempts)
    move_message(k, ch, dl, channel, dlq, seq, moved, exp, size, now, group)
    redis.call('ZADD', k.timers, 'LT', cleanup_due(exp), dlq)
    publish_now(k, dlq, now, 1)
    return 'dead_lettered'
  end
  local reason = HIST.reason
  HIST.reason = 'l'
  remove_message(k, ch, channel, seq, rec, rest)
  HIST.reason = reason
  return 'discarded'
end

-- Deletes every message of a channel and frees their storage. Returns how many.
local function drop_messages(k, ch, channel)
  local count = message_count(ch)
  local bytes = tonumber(redis.call('HGET', k.usage, channel) or '0')
  redis.call('UNLINK', ch.q, ch.f, ch.m, ch.x)
  for _, group in ipairs(redis.call('HKEYS', ch.gn)) do redis.call('UNLINK', ch.g .. group) end
  redis.call('UNLINK', ch.gn, ch.gl, ch.gw, ch.ga)
  redis.call('HDEL', k.usage, channel)
  -- (bytes ~= 0: Lua writes -0 as "-0", which HINCRBY refuses)
  if bytes ~= 0 and redis.call('EXISTS', k.account) == 1 then
    redis.call('HINCRBY', k.account, 'storage_bytes', -bytes)
  end
  return count
end

-- Checks that the caller passed the keys of the dead-letter channel now configured.
local function check_dlq(dlq, expected)
  if dlq ~= expected then
    return redis.error_reply('STALE_CONFIG ' .. dlq)
  end
  return nil
end
