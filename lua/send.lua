--[[
send: store one or more messages in a channel, all or nothing.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens   (rq:{a}:...)
KEYS[7..12] channel keys: q, f, m, x, d, dx                           (rq:{a}:c:<channel>:...)
ARGV[1] channel id
ARGV[2] max_storage_bytes of the account's plan (integer)
ARGV[3] max_channels of the plan (integer)
ARGV[4] retention_ms of the plan (integer); a channel's retention_seconds setting may shorten it
ARGV[5] n, the number of messages; then 8 values per message:
        uuid, delay_ms (integer, or '' for the channel's delay_seconds setting, else 0), size (bytes of body + metadata json), content_type,
        dedup_id ('' for none), metadata length (UTF-16 units, for the reader), metadata json,
        body json
ARGV[6 + 8n] fan-out window ms (integer): at most one new_message per channel per window
ARGV[7 + 8n] the storage ceiling for one message's size (bytes; 1 MiB, more for plans whose
        webhook bodies may be larger); optional, 1048576 when absent
Returns: { {id, ...} in request order, lowered_due_ms or false,
           ms until a coalesced new_message is due or false (the caller then runs
           announce_channel at that time) }
         A message whose dedup_id was seen within the channel's dedup window is not
         stored again: its id is the first message's id.
Errors:  ACCOUNT_NOT_FOUND; CHANNEL_LIMIT <max_channels>; STORAGE_LIMIT <max_storage_bytes>;
         MESSAGE_TOO_LARGE <index> <ceiling> (the storage safeguard)
]]
local k = account_keys(1)
local ch = channel_keys(7)
local channel = ARGV[1]
local max_storage = tonumber(ARGV[2])
local max_channels = tonumber(ARGV[3])
local retention = tonumber(ARGV[4])
local n = tonumber(ARGV[5])
local fanout_window = tonumber(ARGV[6 + 8 * n])
local max_stored = tonumber(ARGV[7 + 8 * n] or '1048576')

if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_NOT_FOUND')
end
local now = now_ms()

local dedup_window = DEFAULT_DEDUP_WINDOW_S
local default_delay = 0
local cfg = redis.call('HGET', k.channels, channel)
if cfg then
  local _, window = parse_config(cfg)
  dedup_window = window
  local settings = parse_settings(cfg)
  default_delay = settings.delay_ms or 0
  if settings.retention_ms and settings.retention_ms < retention then retention = settings.retention_ms end
elseif redis.call('HLEN', k.channels) >= max_channels then
  return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
end

-- First pass: sizes and dedup hits, so that nothing is written if a limit trips.
local ids = {}
local fresh = {}
local seen = {}
local total = 0
for i = 1, n do
  local base = 5 + (i - 1) * 8
  local size = tonumber(ARGV[base + 3])
  if size > max_stored then
    return redis.error_reply('MESSAGE_TOO_LARGE ' .. (i - 1) .. ' ' .. max_stored)
  end
  local dedup_id = ARGV[base + 5]
  local duplicate_of = nil
  if dedup_id ~= '' then
    duplicate_of = seen[dedup_id]
    if duplicate_of == nil then
      local expires = redis.call('ZSCORE', ch.dx, dedup_id)
      if expires and tonumber(expires) > now then
        duplicate_of = redis.call('HGET', ch.d, dedup_id)
      end
    end
  end
  if duplicate_of then
    ids[i] = duplicate_of
  else
    ids[i] = ARGV[base + 1]
    if dedup_id ~= '' then seen[dedup_id] = ids[i] end
    fresh[#fresh + 1] = i
    total = total + size
  end
end

if #fresh == 0 then
  return { ids, false, false }
end
local used = tonumber(redis.call('HGET', k.account, 'storage_bytes') or '0')
if used + total > max_storage then
  return redis.error_reply('STORAGE_LIMIT ' .. max_storage)
end
if not cfg then
  redis.call('HSET', k.channels, channel,
    format_config(DEFAULT_MAX_ATTEMPTS, DEFAULT_DEDUP_WINDOW_S, '', now))
end

local last_seq = redis.call('HINCRBY', k.account, 'seq', #fresh)
local seq_base = last_seq - #fresh
local expire = now + retention
local available_now = false
local earliest_delay = false
local earliest_cleanup = cleanup_due(expire)
for j, i in ipairs(fresh) do
  local base = 5 + (i - 1) * 8
  local seq = string.format('%012x', seq_base + j)
  local delay = tonumber(ARGV[base + 2]) or default_delay
  local rec = '0||' .. ARGV[base + 1] .. '|' .. now .. '|' .. expire .. '|' .. ARGV[base + 3] .. '|' ..
    ARGV[base + 4] .. '|' .. ARGV[base + 6] .. '|||' .. ARGV[base + 7] .. ARGV[base + 8]
  redis.call('HSET', ch.m, seq, rec)
  redis.call('ZADD', ch.q, now + delay, seq)
  redis.call('ZADD', ch.x, expire, seq)
  if delay > 0 then
    earliest_delay = min_due(earliest_delay, now + delay)
  else
    available_now = true
  end
  local dedup_id = ARGV[base + 5]
  if dedup_id ~= '' then
    redis.call('HSET', ch.d, dedup_id, ARGV[base + 1])
    redis.call('ZADD', ch.dx, now + dedup_window * 1000, dedup_id)
    earliest_cleanup = min_due(earliest_cleanup, cleanup_due(now + dedup_window * 1000))
  end
end
redis.call('HINCRBY', k.account, 'storage_bytes', total)
redis.call('HINCRBY', k.usage, channel, total)

local lowered = schedule(k.timers, channel, min_due(earliest_delay, earliest_cleanup))
local pending_ms = false
if available_now then
  local backup_lowered
  pending_ms, backup_lowered = announce(k, channel, now, fanout_window)
  lowered = min_due(lowered, backup_lowered)
end
return { ids, lowered, pending_ms }
