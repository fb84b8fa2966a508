--[[
channel_tags: change and read a channel's tags (the SQS endpoint's queue tags) in one
step: removes the keys named, then sets the pairs given, all or nothing, within the
most tags a channel may have. With no change it only reads them.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens   (rq:{a}:...)
KEYS[7..7] tags keys: tags (hash tag key -> value)                   (rq:{a}:c:<channel>:tags)
ARGV[1] channel: the channel id
ARGV[2] max_tags: the most tags the channel may have after a change that sets some (integer)
ARGV[3] remove_count: the number of keys to remove (integer); those keys follow, then
        the key, value pairs to set (a key set again takes the new value)
Returns: { key, value, ... } the channel's tags after the change, sorted by key
Errors:  CHANNEL_NOT_FOUND; TAG_LIMIT <max_tags> <count> (the change would leave count tags)
]]
local k = account_keys(1)
local tags = KEYS[7]
if redis.call('HEXISTS', k.channels, ARGV[1]) == 0 then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
local max_tags = tonumber(ARGV[2])
local first_pair = 4 + tonumber(ARGV[3])
local current = {}
local stored = redis.call('HGETALL', tags)
for i = 1, #stored, 2 do current[stored[i]] = stored[i + 1] end
for i = 4, first_pair - 1 do current[ARGV[i]] = nil end
for i = first_pair, #ARGV, 2 do current[ARGV[i]] = ARGV[i + 1] end
local names = {}
for name in pairs(current) do names[#names + 1] = name end
if first_pair <= #ARGV and #names > max_tags then
  return redis.error_reply('TAG_LIMIT ' .. max_tags .. ' ' .. #names)
end
if first_pair > 4 then redis.call('HDEL', tags, unpack(ARGV, 4, first_pair - 1)) end
if first_pair <= #ARGV then redis.call('HSET', tags, unpack(ARGV, first_pair, #ARGV)) end
table.sort(names)
local out = {}
for _, name in ipairs(names) do
  out[#out + 1] = name
  out[#out + 1] = current[name]
end
return out
