--[[
account_gauges: one account's backlog, exact at this moment, for the service-wide
gauges (folded into them by gauges_fold). O(channels of the account). Reads only.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
KEYS[7..] channels keys: q, f, m, x, d, dx of each channel named in ARGV, in order
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group; and its push
destination's dead list (<channel>:dst:dead, src/store/keys.ts destinationKeyList), named the
same way, whose unexpired messages are not counted as queued.
ARGV[1] n: the number of channels; ARGV[2..n+1] their ids (every channel of the account)
Returns: { version_us, queued, delayed, in_flight, dead_letter, storage_bytes, channels,
           oldest_message_ms or false, next_expiry_ms or false, groups_ready, groups_blocked }
         for an account that exists (message groups: docs/api/groups.md; queued counts the
         grouped messages waiting behind their group's head too, and not the messages a push
         destination gave up on, kept as dead in their channel);
         { version_us, 0, 0, 0, 0, 0, 0, false, false, 0, 0 } for one that does not (any more);
         'stale' when the channels passed are not all of the account's channels.
         version_us is Redis's TIME in microseconds: a later snapshot has a higher one.
Errors:  none
]]
local k = account_keys(1)
local n = tonumber(ARGV[1])
local t = redis.call('TIME')
local version = tonumber(t[1]) * 1000000 + tonumber(t[2])
if redis.call('EXISTS', k.account) == 0 then
  return { version, 0, 0, 0, 0, 0, 0, false, false, 0, 0 }
end
if redis.call('HLEN', k.channels) ~= n then return 'stale' end
local now = math.floor(version / 1000)
local configs = {}
for i = 1, n do
  local cfg = redis.call('HGET', k.channels, ARGV[1 + i])
  if not cfg then return 'stale' end
  configs[i] = cfg
end
-- channels that are some channel's dead-letter channel
local dead_letter_channels = {}
for i = 1, n do
  local _, _, dlq = parse_config(configs[i])
  if dlq ~= '' then dead_letter_channels[dlq] = true end
end
local queued, delayed, in_flight, dead_letter = 0, 0, 0, 0
local groups_ready, groups_blocked = 0, 0
local oldest = false
local next_expiry = false
for i = 1, n do
  local ch = channel_keys(7 + (i - 1) * 6)
  local ch_delayed = redis.call('ZCOUNT', ch.q, '(' .. now, '+inf')
  local ch_in_flight = redis.call('ZCOUNT', ch.f, '(' .. now, '+inf')
  local ch_dead = redis.call('ZCOUNT', string.sub(ch.q, 1, -2) .. 'dst:dead', '(' .. now, '+inf')
  queued = queued + math.max(0, message_count(ch) - ch_delayed - ch_in_flight - ch_dead)
  delayed = delayed + ch_delayed
  in_flight = in_flight + ch_in_flight
  local groups = redis.call('HLEN', ch.gn)
  if groups > 0 then
    local blocked = math.min(groups, redis.call('HLEN', ch.gl) + redis.call('ZCARD', ch.gw))
    groups_blocked = groups_blocked + blocked
    groups_ready = groups_ready + groups - blocked
  end
  if dead_letter_channels[ARGV[1 + i]] then
    dead_letter = dead_letter + message_count(ch)
  end
  local ts = oldest_sent_ms(ch)
  if ts and (oldest == false or ts < oldest) then oldest = ts end
  local cursor, expiry = first_run(ch)
  if cursor then next_expiry = min_due(next_expiry, expiry) end
end
local storage = tonumber(redis.call('HGET', k.account, 'storage_bytes') or '0')
return { version, queued, delayed, in_flight, dead_letter, storage, n, oldest, next_expiry,
         groups_ready, groups_blocked }
