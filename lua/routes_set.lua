--[[
routes_set: replace (or, with routes_json '', remove) a channel's routes (issue 27,
docs/api/routes.md), all or nothing, keeping the reverse index of route targets that makes
the no-chaining rule one atomic check. Creates the channel and its targets that do not exist,
within the plan's channel limit.
Fields of the routes hash (rq:{a}:routes; channel ids hold no ':'):
  <channel>    the routes as the API shows them (json)
  v:<channel>  its version: a number never given before in the account ('#' counts them);
               absent: the channel has no routes (a send passes '0')
  o:<channel>  its targets (route targets and the unmatched channel), space-separated
  i:<target>   the channels that route into target, space-separated
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
KEYS[7..7] routes keys: routes (rq:{a}:routes)
ARGV[1] channel: the channel whose routes change
ARGV[2] routes_json: the routes to store ('' removes them)
ARGV[3..] the targets: each route's to, and the unmatched channel, without repeats
The plan's max_channels comes from PLANS.
Returns: the new version (0 after a removal, or when there was nothing to remove: -1)
Errors:  ACCOUNT_GONE; CHANNEL_LIMIT <max_channels>;
         ROUTE_CHAIN target <channel> <source> (channel is a target of source);
         ROUTE_CHAIN routed <target> (the target has routes of its own)
]]
local k = account_keys(1)
local routes = KEYS[7]
local channel = ARGV[1]
local max_channels = account_limits(k).max_channels
local json = ARGV[2]
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_GONE')
end

local function words(text)
  local out = {}
  if text then
    for w in string.gmatch(text, '%S+') do out[#out + 1] = w end
  end
  return out
end

local function without(list, item)
  local out = {}
  for _, w in ipairs(list) do
    if w ~= item then out[#out + 1] = w end
  end
  return out
end

if json ~= '' then
  local sources = words(redis.call('HGET', routes, 'i:' .. channel))
  if #sources > 0 then
    return redis.error_reply('ROUTE_CHAIN target ' .. channel .. ' ' .. sources[1])
  end
  for i = 3, #ARGV do
    if redis.call('HEXISTS', routes, 'v:' .. ARGV[i]) == 1 then
      return redis.error_reply('ROUTE_CHAIN routed ' .. ARGV[i])
    end
  end
  local missing = {}
  if redis.call('HEXISTS', k.channels, channel) == 0 then missing[#missing + 1] = channel end
  for i = 3, #ARGV do
    if redis.call('HEXISTS', k.channels, ARGV[i]) == 0 then missing[#missing + 1] = ARGV[i] end
  end
  if #missing > 0 and redis.call('HLEN', k.channels) + #missing > max_channels then
    return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
  end
  local now = now_ms()
  for _, id in ipairs(missing) do
    redis.call('HSET', k.channels, id, format_config(DEFAULT_MAX_ATTEMPTS, DEFAULT_DEDUP_WINDOW_S, '', now))
  end
end

-- the old targets forget the channel
local had = redis.call('HEXISTS', routes, 'v:' .. channel) == 1
for _, target in ipairs(words(redis.call('HGET', routes, 'o:' .. channel))) do
  local rest = without(words(redis.call('HGET', routes, 'i:' .. target)), channel)
  if #rest == 0 then
    redis.call('HDEL', routes, 'i:' .. target)
  else
    redis.call('HSET', routes, 'i:' .. target, table.concat(rest, ' '))
  end
end

if json == '' then
  redis.call('HDEL', routes, channel, 'v:' .. channel, 'o:' .. channel)
  return had and 0 or -1
end

local targets = {}
for i = 3, #ARGV do
  targets[#targets + 1] = ARGV[i]
  local sources = words(redis.call('HGET', routes, 'i:' .. ARGV[i]))
  sources[#sources + 1] = channel
  redis.call('HSET', routes, 'i:' .. ARGV[i], table.concat(sources, ' '))
end
local version = redis.call('HINCRBY', routes, '#', 1)
redis.call('HSET', routes, channel, json, 'v:' .. channel, version, 'o:' .. channel,
  table.concat(targets, ' '))
return version
