--[[
pull: lease up to batch_size available messages, oldest-available first.
Message groups (docs/api/groups.md): a group's head shows in q; taking it takes the group's
next consecutive available messages too, at most ceil(batch_size / ready) of them (ready:
the messages and group heads available now), all in flight together; under strict order
the group is then locked until none of them is leased. A grouped lease that ended makes
its group's head show again (common.lua: group_lease_ended) rather than being leased here.
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
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1..3] caller: token_id, proof, rate (lua/lib/caller.lua)
ARGV[4] channel: the channel id
ARGV[5] must_exist: '1' to refuse a channel that does not exist (SQS), '0' to answer it empty
ARGV[6] visibility_timeout_ms: integer, or '' for the channel's setting, else the default
ARGV[7] batch_size: integer
ARGV[8] nonces: batch_size random strings of 22 characters, concatenated
ARGV[9] dead_letter_channel: the one the caller passed keys for ('' for none)
ARGV[10] attempt_id: '' or an id of this receive (SQS ReceiveRequestAttemptId, 1-128 of
        [A-Za-z0-9!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~]): a pull that gives an id given within
        the last 5 minutes returns the messages that pull leased, those still leased by it,
        and leases nothing new (a pull that leased nothing is not remembered) (key rq:{a}:c:<channel>:ra:<id>, under the account's tag)
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
  return { message_count(ch), {}, false, 0, 0, 0, receive_wait }
end
local vt = tonumber(ARGV[6]) or settings.visibility_ms or DEFAULT_VISIBILITY_MS
local attempt_key = (ARGV[10] or '') ~= '' and (string.sub(ch.q, 1, -2) .. 'ra:' .. ARGV[10]) or nil
local ATTEMPT_MS = 300000
if attempt_key then
  local before = redis.call('GET', attempt_key)
  if before then
    local again = {}
    for lease in string.gmatch(before, '%S+') do
      local seq, nonce = string.sub(lease, 1, 12), string.sub(lease, 13)
      local rec = redis.call('HGET', ch.m, seq)
      if rec and redis.call('ZSCORE', ch.f, seq) then
        local _, current = record_head(rec)
        if current == nonce then
          again[#again + 1] = lease
          again[#again + 1] = rec
        end
      end
    end
    return { message_count(ch), again, false, 0, 0, 0, receive_wait }
  end
end
local fair = settings.named.group_order == 'fair'

local now = now_ms()
local deadline = now + vt
local out = {}
local leased = 0
local discarded, dead_lettered, expired = 0, 0, 0
local ready = available_count(ch, now)
local share = ready > 0 and math.ceil(batch / ready) or batch
-- groups whose head is shown again after this pull: group -> not before (ms) or false
local reshow = {}

local function lease(seq, rec, rest, attempts, from_queue)
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

-- A message about to be delivered: one past its retention is deleted, one that has had its
-- last delivery dead-lettered or discarded (nil then); else its attempts and record rest.
local function deliverable(seq, rec)
  local attempts, _, rest = record_head(rec)
  if record_exp(rec, rest) <= now then
    remove_message(k, ch, channel, seq, rec, rest)
    expired = expired + 1
    return nil
  elseif attempts >= max_attempts then
    if dead_letter(k, ch, dl, channel, dlq, seq, rec, attempts, now, max_channels) == 'discarded' then
      discarded = discarded + 1
    else
      dead_lettered = dead_lettered + 1
    end
    return nil
  end
  return attempts, rest
end

-- A group's turn (token: the seq that showed it in q): its first messages, in send order,
-- while each is available, up to its share.
local function take_group(token, group)
  redis.call('ZREM', ch.q, token)
  if not fair and redis.call('HEXISTS', ch.gl, group) == 1 then return end
  if reshow[group] ~= nil then return end
  redis.call('ZREM', ch.gw, group)
  local key = ch.g .. group
  local members = redis.call('ZRANGE', key, 0, math.min(share, batch - leased) - 1)
  local taken = 0
  for _, seq in ipairs(members) do
    if tonumber(redis.call('HGET', ch.ga, seq) or '0') > now then break end
    local rec = redis.call('HGET', ch.m, seq)
    if not rec then
      redis.call('ZREM', key, seq)
      redis.call('HDEL', ch.ga, seq)
    else
      local attempts, rest = deliverable(seq, rec)
      if attempts then
        lease(seq, rec, rest, attempts, false)
        taken = taken + 1
        if fair then
          redis.call('ZREM', key, seq)
          redis.call('HDEL', ch.ga, seq)
        end
      end
    end
  end
  if fair then
    reshow[group] = now
  elseif taken > 0 then
    redis.call('HINCRBY', ch.gl, group, taken)
  else
    reshow[group] = false
  end
end

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
    if leased >= batch then break end
    local from_queue = queued_first(queued, i, ended, j)
    if from_queue == nil then break end
    local seq, score
    if from_queue then
      seq, score = queued[i], tonumber(queued[i + 1]); i = i + 2
    else
      seq, score = ended[j], tonumber(ended[j + 1]); j = j + 2
    end
    local rec = redis.call('HGET', ch.m, seq)
    if not rec then
      redis.call('ZREM', ch.q, seq)
      redis.call('ZREM', ch.f, seq)
    else
      local group = record_group(rec)
      if group ~= '' and not from_queue then
        -- its lease ran out: its group's head shows again (taken in a later round)
        group_lease_ended(k, ch, channel, group, seq, score, score)
        local _, _, rest = record_head(rec)
        history_note(rec, rest, 'y', 'lease', now)
      elseif group ~= '' and redis.call('ZSCORE', ch.g .. group, seq) then
        take_group(seq, group)
      else
        local attempts, rest = deliverable(seq, rec)
        if attempts then lease(seq, rec, rest, attempts, from_queue) end
      end
    end
  end
end
local lowered = false
for group, since in pairs(reshow) do
  local at = group_show(ch, group, since or nil)
  if at and at > now then lowered = min_due(lowered, schedule(k.timers, channel, at)) end
end
if leased > 0 then
  lowered = min_due(lowered, schedule(k.timers, channel, deadline))
end
lowered = min_due(lowered, history_schedule())
if attempt_key and leased > 0 then
  local leases = {}
  for n = 1, #out, 2 do leases[#leases + 1] = out[n] end
  redis.call('SET', attempt_key, table.concat(leases, ' '), 'PX', ATTEMPT_MS)
end
return { message_count(ch), out, lowered, discarded, dead_lettered, expired, receive_wait }
