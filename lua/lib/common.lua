-- Shared helpers, prepended to every script by the loader (src/store/scripts.ts).
--
-- Key layout shared by the scripts (built by src/store/keys.ts, all under {account}):
--   account keys  KEYS[1..6]:  account (hash), channels (hash), timers (zset), usage (hash),
--                              events (shard channel), tokens (hash token id -> json)
--   channel keys  6 in a row:  q (zset seq -> available ms), f (zset seq -> lease deadline ms),
--                              m (hash seq -> record), x (zset seq -> expiry ms),
--                              d (hash dedup_id -> uuid), dx (zset dedup_id -> expiry ms)
--
-- A message record is one string in the channel's messages hash, field = seq:
--   attempts|nonce|uuid|timestamp_ms|expire_ms|size|content_type|meta_len|src|src_attempts|<metadata json><body json>
-- attempts and nonce change with every lease; the rest is fixed at send. meta_len is
-- the metadata's length as the service's JavaScript reader counts it (UTF-16 units). src and
-- src_attempts are set only on a dead-lettered message (source channel, deliveries there).
-- A channel's config (channels hash, field = channel id):
--   max_attempts|dedup_window_s|dead_letter_channel|created_ms[|paused|visibility_ms|delay_ms|retention_ms[|receive_wait_ms]]
-- The bracketed settings tail is absent on channels never given a setting; in it,
-- paused is 0 or 1 and an empty number means "not set: the default applies".
-- receive_wait_ms (the SQS endpoint's default WaitTimeSeconds) is absent on older tails.

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function account_keys(first)
  return { account = KEYS[first], channels = KEYS[first + 1], timers = KEYS[first + 2],
           usage = KEYS[first + 3], events = KEYS[first + 4], tokens = KEYS[first + 5] }
end

local function channel_keys(first)
  return { q = KEYS[first], f = KEYS[first + 1], m = KEYS[first + 2], x = KEYS[first + 3],
           d = KEYS[first + 4], dx = KEYS[first + 5] }
end

local function record_head(rec)
  local attempts, nonce, rest = string.match(rec, '^(%d+)|([^|]*)|()')
  return tonumber(attempts), nonce, rest
end

-- uuid, ts, exp, size, content_type, meta_len, src, src_attempts (strings), payload position
local function record_fields(rec, rest)
  return string.match(rec, '^([^|]*)|(%d+)|(%d+)|(%d+)|([^|]*)|(%d+)|([^|]*)|([^|]*)|()', rest)
end

-- Send time (ms) of the channel's oldest message (the first to expire), or false when empty.
local function oldest_sent_ms(ch)
  local first = redis.call('ZRANGE', ch.x, 0, 0)
  if not first[1] then return false end
  local rec = redis.call('HGET', ch.m, first[1])
  if not rec then return false end
  local _, _, rest = record_head(rec)
  local _, ts = record_fields(rec, rest)
  return tonumber(ts)
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
-- receive_wait_ms } (each number nil when not set).
local function parse_settings(cfg)
  local _, _, _, _, tail = parse_config(cfg)
  local paused, vt, delay, retention, wait = string.match(tail, '^|([01])|(%d*)|(%d*)|(%d*)|?(%d*)$')
  return { paused = paused == '1', visibility_ms = tonumber(vt), delay_ms = tonumber(delay),
           retention_ms = tonumber(retention), receive_wait_ms = tonumber(wait) }
end

local function format_settings(s)
  return '|' .. (s.paused and '1' or '0') .. '|' .. (s.visibility_ms or '') .. '|' ..
    (s.delay_ms or '') .. '|' .. (s.retention_ms or '') .. '|' .. (s.receive_wait_ms or '')
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

-- Publishes new_message for the channel now (used where coalescing is not worth it).
-- Tells subscribers (WebSocket clients, long polls on every pod) that messages became
-- available; silent for a paused channel (and nothing stays pending for it).
local function publish_now(k, channel, now)
  if not is_paused(k, channel) then
    redis.call('SPUBLISH', k.events, 'n ' .. channel)
  end
  if redis.call('EXISTS', k.account) == 1 then
    redis.call('HSET', k.account, 'n:' .. channel, now .. '|0')
  end
end

-- Messages became available on the channel: publish now unless the channel
-- published less than window_ms ago; then mark it pending and lower its timer
-- as a backup. Returns { ms until the pending announcement is due or false,
-- the lowered account due time or false }.
local function announce(k, channel, now, window_ms)
  if is_paused(k, channel) then return false, false end
  local last = fanout_state(k, channel)
  if now >= last + window_ms then
    publish_now(k, channel, now)
    return false, false
  end
  if redis.call('EXISTS', k.account) == 0 then return false, false end
  redis.call('HSET', k.account, 'n:' .. channel, last .. '|1')
  local due = last + window_ms
  return due - now, schedule(k.timers, channel, due + FANOUT_BACKUP_MS)
end

-- Removes a message from every index of its channel and frees its storage.
local function remove_message(k, ch, channel, seq, size)
  redis.call('HDEL', ch.m, seq)
  redis.call('ZREM', ch.q, seq)
  redis.call('ZREM', ch.f, seq)
  redis.call('ZREM', ch.x, seq)
  redis.call('HINCRBY', k.account, 'storage_bytes', -size)
  redis.call('HINCRBY', k.usage, channel, -size)
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
  local uuid, ts, exp, size, ct, mlen, _, _, payload = record_fields(rec, rest)
  return '0||' .. uuid .. '|' .. ts .. '|' .. exp .. '|' .. size .. '|' .. ct .. '|' .. mlen .. '|' ..
    src .. '|' .. src_attempts .. '|' .. string.sub(rec, payload), tonumber(exp), tonumber(size)
end

-- Moves message seq from one channel to another, available now, keeping its
-- expiry; its bytes move from one channel's usage to the other's.
local function move_message(k, from, to, from_channel, to_channel, seq, record, exp, size, now)
  redis.call('HDEL', from.m, seq)
  redis.call('ZREM', from.q, seq)
  redis.call('ZREM', from.f, seq)
  redis.call('ZREM', from.x, seq)
  redis.call('HSET', to.m, seq, record)
  redis.call('ZADD', to.q, now, seq)
  redis.call('ZADD', to.x, exp, seq)
  redis.call('HINCRBY', k.usage, from_channel, -size)
  redis.call('HINCRBY', k.usage, to_channel, size)
end

-- Ends a message's life in its channel after its last delivery: moves it to the
-- dead-letter channel when one is configured (and exists or can be created),
-- otherwise discards it. dl = keys of the dead-letter channel, or nil.
-- Returns 'dead_lettered' or 'discarded'.
local function dead_letter(k, ch, dl, channel, dlq, seq, rec, attempts, now, max_channels)
  local moved, exp, size = moved_record(rec, channel, attempts)
  if dlq ~= '' and dl ~= nil and ensure_channel(k, dlq, max_channels, now) then
    move_message(k, ch, dl, channel, dlq, seq, moved, exp, size, now)
    redis.call('ZADD', k.timers, 'LT', cleanup_due(exp), dlq)
    publish_now(k, dlq, now)
    return 'dead_lettered'
  end
  remove_message(k, ch, channel, seq, size)
  return 'discarded'
end

-- Deletes every message of a channel and frees their storage. Returns how many.
local function drop_messages(k, ch, channel)
  local count = redis.call('HLEN', ch.m)
  local bytes = tonumber(redis.call('HGET', k.usage, channel) or '0')
  redis.call('UNLINK', ch.q, ch.f, ch.m, ch.x)
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
