--[[
send: store one or more messages in a channel, all or nothing, for a caller checked in the
same call (lua/lib/caller.lua): a refused caller stores nothing.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens   (rq:{a}:...)
KEYS[7..12]  channel keys: q, f, m, x, d, dx                           (rq:{a}:c:<channel>:...)
KEYS[13..14] caller keys: rate, token_rate
KEYS[15..15] routes keys: routes (rq:{a}:routes, lua/routes_set.lua)
KEYS[16..18] history keys: h, hi, he of the channel (lua/lib/history.lua)
KEYS[19..19] webhooks keys: webhooks (rq:{a}:webhooks; absent when webhook_id is '')
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1..3] caller: token_id, proof, rate (lua/lib/caller.lua)
ARGV[4] channel: the channel id
ARGV[5] must_exist: '1' to refuse a channel that does not exist (SQS), '0' to create it
ARGV[6] webhook_id: the webhook a delivery came through ('' for none): it must still exist,
        and its delivery is counted and its time noted
ARGV[7] route_version: '0', the channel has no routes, as the pod believes (else ROUTES_CHANGED)
ARGV[8] n: the number of messages; then 9 values per message:
        id (the message's UUID as its 16 bytes in 22 base64url characters), delay_ms (integer, or '' for the channel's delay_seconds setting, else 0), size (bytes of body + metadata json), content_type,
        dedup_id ('' for none), metadata length (UTF-16 units, for the reader), metadata json,
        body json, group_id ('' for none; docs/api/groups.md: a grouped message waits in its
        group, and only a group's head is in q)
ARGV[9 + 9n] fanout_window_ms: the new_message coalescing window (announce in lib/common.lua; integer)
ARGV[10 + 9n] size_setting (optional; the SQS endpoint's size cap): a named channel setting
        (sqs_max_bytes) that lowers the cap on each message's size for the channel
ARGV[11 + 9n] size_limit: the plan limit that caps it (max_sqs_message_bytes); n sizes follow,
        each message's size as the cap counts it
ARGV[#ARGV] entrance (optional, last; for the channel's history): api, webhook, sqs, route or
        replay; without it, webhook when webhook_id is given, sqs when size_setting is, else api
The plan's max_storage_bytes, max_channels, retention and storage ceiling for one message
(1 MiB, more for plans whose webhook bodies may be larger) come from PLANS.
Returns: { {id (22 base64url characters), ...} in request order, lowered_due_ms or false,
           ms until a coalesced new_message is due or false (the caller then runs
           announce_channel at that time),
           {FIFO sequence number or '', ...} in request order (a FIFO channel's: its
           named setting fifo=1; a decimal string increasing per channel) }
         A message whose dedup_id was seen within the channel's dedup window is not
         stored again: its id (and sequence number) are the first message's.
Errors:  the caller's (lua/lib/caller.lua); CHANNEL_SCOPE <channel>; CHANNEL_LIMIT <max_channels>;
         CHANNEL_NOT_FOUND (must_exist); WEBHOOK_NOT_FOUND (the webhook was deleted);
         ROUTES_CHANGED <version> (the channel has routes);
         STORAGE_LIMIT <max_storage_bytes>; MESSAGE_TOO_LARGE <index> <ceiling> (the storage safeguard);
         SIZE_LIMIT <index> <size> <size_setting or size_limit: the bound> <cap>;
         GROUP_REQUIRED <index> (a FIFO channel's message without group_id)
]]
local k = account_keys(1)
local ch = channel_keys(7)
local channel = ARGV[4]
local now = now_ms()
-- a delivery to a deleted webhook (or a deleted account's) is refused as an unknown URL
if ARGV[6] ~= '' and redis.call('HEXISTS', KEYS[19], ARGV[6]) == 0 then
  return redis.error_reply('WEBHOOK_NOT_FOUND')
end
local caller = check_caller(k, KEYS[13], KEYS[14], channel, now)
if caller.err then return caller end
-- a channel with routes stores copies instead (send_routed.lua): the pod thought it had none
local routes_version = redis.call('HGET', KEYS[15], 'v:' .. channel) or '0'
if routes_version ~= ARGV[7] then return redis.error_reply('ROUTES_CHANGED ' .. routes_version) end
local max_storage = caller.limits.max_storage_bytes
local max_channels = caller.limits.max_channels
local retention = caller.limits.retention_ms
local must_exist = ARGV[5] == '1'
local webhook_id = ARGV[6]
local n = tonumber(ARGV[8])
local fanout_window = tonumber(ARGV[9 + 9 * n])
local max_stored = caller.limits.storage_ceiling

local dedup_window = DEFAULT_DEDUP_WINDOW_S
local default_delay = 0
local cfg = redis.call('HGET', k.channels, channel)
local settings = cfg and parse_settings(cfg)
-- the optional tails: size (2 + n values) and entrance (1)
local extra = #ARGV - (9 + 9 * n)
local sized = extra >= 2 + n
local entrance = (webhook_id ~= '' and 'webhook') or (sized and 'sqs') or 'api'
if extra == 1 or extra == 3 + n then entrance = ARGV[#ARGV] end
history_begin(k, channel, settings, 16)
local size_setting, size_bound, size_cap = ARGV[10 + 9 * n], ARGV[11 + 9 * n], nil
if sized then
  size_cap = tonumber(caller.limits[size_bound])
  local own = settings and tonumber(settings.named[size_setting])
  if own and (not size_cap or own < size_cap) then size_cap, size_bound = own, size_setting end
end
if cfg then
  local _, window = parse_config(cfg)
  dedup_window = window
  default_delay = settings.delay_ms or 0
  if settings.retention_ms and settings.retention_ms < retention then retention = settings.retention_ms end
elseif must_exist then
  return redis.error_reply('CHANNEL_NOT_FOUND')
elseif redis.call('HLEN', k.channels) >= max_channels then
  return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
end

local fifo = settings and settings.named.fifo == '1'

-- First pass: sizes and dedup hits, so that nothing is written if a limit trips.
local ids = {}
local fifo_seqs = {}
local fresh = {}
local seen = {}
local total = 0
for i = 1, n do
  local base = 8 + (i - 1) * 9
  local size = tonumber(ARGV[base + 3])
  if size_cap and tonumber(ARGV[11 + 9 * n + i]) > size_cap then
    return redis.error_reply('SIZE_LIMIT ' .. (i - 1) .. ' ' .. ARGV[11 + 9 * n + i] .. ' ' .. size_bound .. ' ' .. size_cap)
  end
  if size > max_stored then
    return redis.error_reply('MESSAGE_TOO_LARGE ' .. (i - 1) .. ' ' .. max_stored)
  end
  -- the service validates content types: another one here is a bug, refused before any write
  if not CONTENT_CODES[ARGV[base + 4]] then error('unknown content_type ' .. ARGV[base + 4]) end
  if fifo and ARGV[base + 9] == '' then
    return redis.error_reply('GROUP_REQUIRED ' .. (i - 1))
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
    ids[i], fifo_seqs[i] = string.match(duplicate_of, '^([^|]*)|?(%d*)$')
  else
    ids[i] = ARGV[base + 1]
    fifo_seqs[i] = ''
    if fifo then
      fifo_seqs[i] = '1' .. string.format('%019d', redis.call('INCR', ch.sn))
    end
    if dedup_id ~= '' then seen[dedup_id] = ids[i] .. '|' .. fifo_seqs[i] end
    fresh[#fresh + 1] = i
    total = total + size
  end
end

local function count_delivery()
  if webhook_id == '' then return end
  redis.call('HINCRBY', KEYS[19], webhook_id .. ':count', 1)
  redis.call('HSET', KEYS[19], webhook_id .. ':last', now)
end

if #fresh == 0 then
  count_delivery()
  return { ids, false, false, fifo_seqs }
end
local used = tonumber(redis.call('HGET', k.account, 'storage_bytes') or '0')
if used + total > max_storage then
  return redis.error_reply('STORAGE_LIMIT ' .. max_storage)
end
if not cfg then
  redis.call('HSET', k.channels, channel,
    format_config(DEFAULT_MAX_ATTEMPTS, DEFAULT_DEDUP_WINDOW_S, '', now))
end

local st = seq_state(ch)
local expire = now + retention
local stamps = base36(now, TIME_DIGITS) .. base36(expire, TIME_DIGITS)
local available_now = 0
local earliest_delay = false
local earliest_cleanup = cleanup_due(expire)
for _, i in ipairs(fresh) do
  local base = 8 + (i - 1) * 9
  local seq = append_seq(ch, st, expire)
  local delay = tonumber(ARGV[base + 2]) or default_delay
  local content = CONTENT_CODES[ARGV[base + 4]]
  local metadata, body = ARGV[base + 7], ARGV[base + 8]
  local group = ARGV[base + 9]
  local rec = '0||' .. ARGV[base + 1] .. stamps .. content .. base36(tonumber(ARGV[base + 6])) ..
    record_extras('', '', tonumber(ARGV[base + 3]), #metadata + #body, group, fifo_seqs[i]) ..
    metadata .. body
  redis.call('HSET', ch.m, seq, rec)
  local queued = true
  if group ~= '' then
    queued = group_added(ch, group, seq, now + delay)
  else
    redis.call('ZADD', ch.q, now + delay, seq)
  end
  if HIST.on then history_received(ARGV[base + 1], seq, now, entrance) end
  if not queued then
    -- waits behind its group's head
  elseif delay > 0 then
    earliest_delay = min_due(earliest_delay, now + delay)
  else
    available_now = available_now + 1
  end
  local dedup_id = ARGV[base + 5]
  if dedup_id ~= '' then
    redis.call('HSET', ch.d, dedup_id, ARGV[base + 1] .. (fifo_seqs[i] ~= '' and '|' .. fifo_seqs[i] or ''))
    redis.call('ZADD', ch.dx, now + dedup_window * 1000, dedup_id)
    earliest_cleanup = min_due(earliest_cleanup, cleanup_due(now + dedup_window * 1000))
  end
end
save_seq_state(ch, st)
count_expiry(ch, expire, #fresh)
redis.call('HINCRBY', k.account, 'storage_bytes', total)
redis.call('HINCRBY', k.usage, channel, total)
count_delivery()

local lowered = schedule(k.timers, channel, min_due(earliest_delay, earliest_cleanup))
local pending_ms = false
if available_now > 0 then
  local backup_lowered
  pending_ms, backup_lowered = announce(k, channel, now, fanout_window, ch.q, available_now)
  lowered = min_due(lowered, backup_lowered)
end
return { ids, lowered, pending_ms, fifo_seqs }
