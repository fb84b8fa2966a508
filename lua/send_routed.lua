--[[
send_routed: store messages that arrived at a channel with routes (issue 27) as copies in
the channels the pod chose by the routes' filters, all or nothing, for a caller checked in
the same call: one copy per chosen channel, each an independent message with its own id,
metadata.route = {"from": <channel>, "id": <the message's first copy's id>} added here. The
pod evaluated the routes of version route_version: when the channel's routes changed since,
nothing is stored (ROUTES_CHANGED) and the pod evaluates the new ones.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens   (rq:{a}:...)
KEYS[7..8]   caller keys: rate, token_rate
KEYS[9..9]   routes keys: routes (rq:{a}:routes, lua/routes_set.lua)
KEYS[10..10] webhooks keys: webhooks (rq:{a}:webhooks; absent when webhook_id is '')
KEYS[11..]   channels keys: q, f, m, x, d, dx of each target in the order of the targets (the
             last 6c KEYS: they start one earlier when the webhooks key is absent)
ARGV[1..3] caller: token_id, proof, rate (lua/lib/caller.lua)
ARGV[4] channel: the channel the messages arrived at
ARGV[5] must_exist: '1' to refuse a channel that does not exist (SQS), '0' to go on
ARGV[6] webhook_id: the webhook a delivery came through ('' for none): it must still exist,
        and its delivery is counted and its time noted
ARGV[7] route_version: the version of the routes the pod evaluated ('v:<channel>')
ARGV[8] fanout_window_ms: the new_message coalescing window (announce in lib/common.lua)
ARGV[9] c: the number of target channels; their ids follow (ARGV[10..9+c])
ARGV[10+c] n: the number of messages; then per message: delay_ms (integer, or '' for the
        target's delay_seconds setting, else 0), size (bytes of body + metadata json as sent),
        content_type, dedup_id ('' for none), metadata length (UTF-16 units), metadata json
        (an object without a route key), body json, group_id ('' for none; every copy is in
        that group of its channel, docs/api/groups.md), m (its copies), then per copy: target
        (1-based index into the targets), id (22 base64url characters)
then (optional; the SQS endpoint's size cap, as send.lua takes it) size_setting: a named
        setting of the channel the messages arrived at (sqs_max_bytes) that lowers the cap on
        each message's size, size_limit: the plan limit that caps it (max_sqs_message_bytes),
        and n sizes, each message's size as the cap counts it
The plan's max_storage_bytes, max_channels, retention and storage ceiling come from PLANS.
Returns: { per message { target, id, sequence, ... } of its copies (a copy whose dedup_id its
           target holds has that message's id and sequence and is not stored again; sequence:
           the copy's FIFO sequence number in a FIFO target, else ''), lowered_due_ms or false,
           { target, ms until its coalesced new_message is due, ... } }
Errors:  the caller's (lua/lib/caller.lua); CHANNEL_SCOPE <channel>; CHANNEL_LIMIT <max_channels>;
         CHANNEL_NOT_FOUND (must_exist); WEBHOOK_NOT_FOUND; ROUTES_CHANGED <version now>;
         STORAGE_LIMIT <max_storage_bytes>; MESSAGE_TOO_LARGE <index> <ceiling>;
         SIZE_LIMIT <index> <size> <size_setting or size_limit: the bound> <cap>;
         GROUP_REQUIRED <index> (a message without group_id for a FIFO channel: the channel it
         arrived at or a target)
Not in KEYS: each target's message-group keys (lua/lib/common.lua channel_keys) and history
keys (h, hi, he: lua/lib/history.lua history_keys_of; a copy in a target whose history is on
is received there with entrance 'route'), named from its q key under the account's hash tag.
]]
local k = account_keys(1)
local channel = ARGV[4]
local now = now_ms()
local webhook_id = ARGV[6]
if webhook_id ~= '' and redis.call('HEXISTS', KEYS[10], webhook_id) == 0 then
  return redis.error_reply('WEBHOOK_NOT_FOUND')
end
local caller = check_caller(k, KEYS[7], KEYS[8], channel, now)
if caller.err then return caller end
local version = redis.call('HGET', KEYS[9], 'v:' .. channel) or '0'
if version ~= ARGV[7] then return redis.error_reply('ROUTES_CHANGED ' .. version) end
if ARGV[5] == '1' and redis.call('HEXISTS', k.channels, channel) == 0 then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
local max_storage = caller.limits.max_storage_bytes
local max_channels = caller.limits.max_channels
local max_stored = caller.limits.storage_ceiling
local fanout_window = tonumber(ARGV[8])

-- the targets: ids, keys, and what their configs say
local c = tonumber(ARGV[9])
local targets = {}
local missing = 0
for j = 1, c do
  local id = ARGV[9 + j]
  local cfg = redis.call('HGET', k.channels, id)
  local t = { id = id, ch = channel_keys(#KEYS - 6 * c + 1 + (j - 1) * 6), cfg = cfg,
              dedup_window = DEFAULT_DEDUP_WINDOW_S, delay = 0,
              retention = caller.limits.retention_ms, seen = {}, fresh = 0, available = 0,
              earliest = false, total = 0, fifo = false }
  if cfg then
    local settings = parse_settings(cfg)
    t.settings = settings
    local _, window = parse_config(cfg)
    t.dedup_window = window
    t.delay = settings.delay_ms or 0
    t.fifo = settings.named.fifo == '1'
    if settings.retention_ms and settings.retention_ms < t.retention then t.retention = settings.retention_ms end
  else
    missing = missing + 1
  end
  targets[j] = t
end
if missing > 0 and redis.call('HLEN', k.channels) + missing > max_channels then
  return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
end

-- base64url of 16 bytes (22 characters) as the UUID text
local B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
local B64_VALUE = {}
for i = 1, 64 do B64_VALUE[string.byte(B64, i)] = i - 1 end
local function uuid_text(compact)
  local hex, acc, bits = {}, 0, 0
  for i = 1, #compact do
    acc = acc * 64 + B64_VALUE[string.byte(compact, i)]
    bits = bits + 6
    if bits >= 8 then
      bits = bits - 8
      local byte = math.floor(acc / 2 ^ bits)
      acc = acc - byte * 2 ^ bits
      hex[#hex + 1] = string.format('%02x', byte)
    end
  end
  local h = table.concat(hex)
  return string.sub(h, 1, 8) .. '-' .. string.sub(h, 9, 12) .. '-' .. string.sub(h, 13, 16) .. '-' ..
    string.sub(h, 17, 20) .. '-' .. string.sub(h, 21, 32)
end

-- First pass: every copy's id, size and dedup hit, so that nothing is written if a limit trips.
local messages = {}
local at = 11 + c
-- the settings of the channel the messages arrived at (FIFO, and the SQS size cap below)
local own_cfg = redis.call('HGET', k.channels, channel)
local own_named = own_cfg and parse_settings(own_cfg).named or {}
local own_fifo = own_named.fifo == '1'
local n = tonumber(ARGV[10 + c])
local total = 0
for i = 1, n do
  local m = { delay = tonumber(ARGV[at]), size = tonumber(ARGV[at + 1]), content = ARGV[at + 2],
              dedup_id = ARGV[at + 3], meta_len = tonumber(ARGV[at + 4]), metadata = ARGV[at + 5],
              body = ARGV[at + 6], group = ARGV[at + 7], copies = {} }
  if not CONTENT_CODES[m.content] then error('unknown content_type ' .. m.content) end
  if own_fifo and m.group == '' then return redis.error_reply('GROUP_REQUIRED ' .. (i - 1)) end
  local copies = tonumber(ARGV[at + 8])
  at = at + 9
  for _ = 1, copies do
    local t = targets[tonumber(ARGV[at])]
    local copy = { t = tonumber(ARGV[at]), id = ARGV[at + 1], seq = '' }
    at = at + 2
    if t.fifo and m.group == '' then return redis.error_reply('GROUP_REQUIRED ' .. (i - 1)) end
    if m.dedup_id ~= '' then
      local held = t.seen[m.dedup_id]
      if held == nil then
        local expires = redis.call('ZSCORE', t.ch.dx, m.dedup_id)
        if expires and tonumber(expires) > now then held = redis.call('HGET', t.ch.d, m.dedup_id) end
      end
      if held then
        copy.id, copy.seq = string.match(held, '^([^|]*)|?(%d*)$')
        copy.duplicate = true
      end
    end
    if not copy.duplicate then
      if t.fifo then copy.seq = '1' .. string.format('%019d', redis.call('INCR', t.ch.sn)) end
      if m.dedup_id ~= '' then
        t.seen[m.dedup_id] = copy.id .. (copy.seq ~= '' and '|' .. copy.seq or '')
      end
    end
    m.copies[#m.copies + 1] = copy
  end
  if #m.copies > 0 then
    local added = '"route":{"from":"' .. channel .. '","id":"' .. uuid_text(m.copies[1].id) .. '"}'
    local before = #m.metadata
    if m.metadata == '{}' then
      m.metadata = '{' .. added .. '}'
    else
      m.metadata = string.sub(m.metadata, 1, -2) .. ',' .. added .. '}'
    end
    -- (ASCII only: as many UTF-16 units as bytes)
    m.meta_len = m.meta_len + #m.metadata - before
    m.size = m.size + #m.metadata - before
    if m.size > max_stored then
      return redis.error_reply('MESSAGE_TOO_LARGE ' .. (i - 1) .. ' ' .. max_stored)
    end
    for _, copy in ipairs(m.copies) do
      if not copy.duplicate then total = total + m.size end
    end
  end
  messages[i] = m
end

-- the SQS endpoint's size cap, of the channel the messages arrived at (as send.lua's)
local size_setting, size_bound = ARGV[at], ARGV[at + 1]
if size_setting then
  local size_cap = tonumber(caller.limits[size_bound])
  local own = tonumber(own_named[size_setting])
  if own and (not size_cap or own < size_cap) then size_cap, size_bound = own, size_setting end
  for i = 1, n do
    local size = ARGV[at + 1 + i]
    if size_cap and tonumber(size) > size_cap then
      return redis.error_reply('SIZE_LIMIT ' .. (i - 1) .. ' ' .. size .. ' ' .. size_bound .. ' ' .. size_cap)
    end
  end
end

local function count_delivery()
  if webhook_id == '' then return end
  redis.call('HINCRBY', KEYS[10], webhook_id .. ':count', 1)
  redis.call('HSET', KEYS[10], webhook_id .. ':last', now)
end

local used = tonumber(redis.call('HGET', k.account, 'storage_bytes') or '0')
if total > 0 and used + total > max_storage then
  return redis.error_reply('STORAGE_LIMIT ' .. max_storage)
end

-- Second pass: store the copies.
local reply = {}
for _, t in ipairs(targets) do t.st = false end
for i, m in ipairs(messages) do
  local flat = {}
  local meta = base36(m.meta_len)
  local content = CONTENT_CODES[m.content]
  for _, copy in ipairs(m.copies) do
    local t = targets[copy.t]
    flat[#flat + 1] = copy.t
    flat[#flat + 1] = copy.id
    flat[#flat + 1] = copy.seq
    if not copy.duplicate then
      if not t.cfg and not t.created then
        redis.call('HSET', k.channels, t.id, format_config(DEFAULT_MAX_ATTEMPTS, DEFAULT_DEDUP_WINDOW_S, '', now))
        t.created = true
      end
      if not t.st then t.st = seq_state(t.ch) end
      local expire = now + t.retention
      local seq = append_seq(t.ch, t.st, expire)
      local delay = m.delay or t.delay
      redis.call('HSET', t.ch.m, seq, '0||' .. copy.id .. base36(now, TIME_DIGITS) ..
        base36(expire, TIME_DIGITS) .. content .. meta ..
        record_extras('', '', m.size, #m.metadata + #m.body, m.group, copy.seq) .. m.metadata .. m.body)
      local queued = true
      if m.group ~= '' then
        queued = group_added(t.ch, m.group, seq, now + delay)
      else
        redis.call('ZADD', t.ch.q, now + delay, seq)
      end
      if t.settings then
        history_begin(k, t.id, t.settings, history_keys_of(t.ch))
        if HIST.on then history_received(copy.id, seq, now, 'route') end
      end
      if not queued then
        -- waits behind its group's head
      elseif delay > 0 then
        t.earliest = min_due(t.earliest, now + delay)
      else
        t.available = t.available + 1
      end
      t.earliest = min_due(t.earliest, cleanup_due(expire))
      count_expiry(t.ch, expire, 1)
      if m.dedup_id ~= '' then
        redis.call('HSET', t.ch.d, m.dedup_id, copy.id .. (copy.seq ~= '' and '|' .. copy.seq or ''))
        redis.call('ZADD', t.ch.dx, now + t.dedup_window * 1000, m.dedup_id)
        t.earliest = min_due(t.earliest, cleanup_due(now + t.dedup_window * 1000))
      end
      t.total = t.total + m.size
    end
  end
  reply[i] = flat
end

local lowered = false
local pending = {}
for j, t in ipairs(targets) do
  if t.st then
    save_seq_state(t.ch, t.st)
    redis.call('HINCRBY', k.usage, t.id, t.total)
    lowered = min_due(lowered, schedule(k.timers, t.id, t.earliest))
    if t.available > 0 then
      local ms, backup_lowered = announce(k, t.id, now, fanout_window, t.ch.q, t.available)
      lowered = min_due(lowered, backup_lowered)
      if ms then
        pending[#pending + 1] = j
        pending[#pending + 1] = ms
      end
    end
  end
end
if total > 0 then redis.call('HINCRBY', k.account, 'storage_bytes', total) end
count_delivery()
return { reply, lowered, pending }
