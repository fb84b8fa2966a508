--[[
destination_save: create a channel's push destination (creating the channel if needed; the
plan's channel limit applies) or change it. A channel has at most one destination.
Making a destination active again clears its failure streak and circuit breaker.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..10]  destination keys: destination, attempts, window, dead
ARGV[1] channel: the channel id
ARGV[2] id: the destination's id
ARGV[3] mode: 'create' or 'update'
ARGV[4] config: the destination's settings (JSON text, stored as given; '' keeps them)
ARGV[5] state: 'active', 'paused' or '' to keep it (create: active)
ARGV[6] secret: a new signing secret ('' keeps it)
ARGV[7] previous_ms: how long the replaced secret still signs (ms; 0: not at all)
The plan's max_channels (create makes the channel if needed) comes from PLANS.
Returns: { created_ms, state }
Errors:  ACCOUNT_GONE; CHANNEL_LIMIT <max_channels>; DESTINATION_EXISTS <id of the channel's
         destination>; DESTINATION_NOT_FOUND
]]
local k = account_keys(1)
local dst = KEYS[7]
local channel, id, mode = ARGV[1], ARGV[2], ARGV[3]
local now = now_ms()
local current = redis.call('HGET', dst, 'id')
if mode == 'create' then
  if current then return redis.error_reply('DESTINATION_EXISTS ' .. current) end
  if redis.call('EXISTS', k.account) == 0 then return redis.error_reply('ACCOUNT_GONE') end
  local limits = account_limits(k)
  if not ensure_channel(k, channel, limits.max_channels, now) then
    return redis.error_reply('CHANNEL_LIMIT ' .. limits.max_channels)
  end
  local state = ARGV[5] ~= '' and ARGV[5] or 'active'
  redis.call('HSET', dst, 'id', id, 'created', now, 'state', state, 'config', ARGV[4],
    'secret', ARGV[6], 'fails', 0)
  return { now, state }
end
if current ~= id then return redis.error_reply('DESTINATION_NOT_FOUND') end
if ARGV[4] ~= '' then redis.call('HSET', dst, 'config', ARGV[4]) end
if ARGV[6] ~= '' then
  local old = redis.call('HGET', dst, 'secret')
  redis.call('HSET', dst, 'secret', ARGV[6], 'previous_secret', old,
    'previous_until', now + tonumber(ARGV[7]))
end
if ARGV[5] ~= '' then
  redis.call('HSET', dst, 'state', ARGV[5])
  if ARGV[5] == 'active' then
    redis.call('HSET', dst, 'fails', 0, 'open_until', 0, 'cooldown', 0, 'failing_since', '')
    redis.call('HDEL', dst, 'disabled_reason')
  end
end
return { tonumber(redis.call('HGET', dst, 'created')), redis.call('HGET', dst, 'state') }
