--[[
channel_delete: delete a channel, its messages, configuration, dedup history,
tags, fan-out state and webhook endpoints (their URLs are refused from now on; this
walks the account's webhooks, at most 100); its slot in the plan's channel
limit is freed. Channels that had it as their dead-letter channel lose that
setting (so that their last deliveries are discarded instead of bringing the
deleted channel back); this walks the account's channels, at most the plan's
channel limit.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
KEYS[13..13] webhooks keys: webhooks (rq:{a}:webhooks)
KEYS[14..14] tags keys: tags (rq:{a}:c:<channel>:tags)
KEYS[15..17] history keys: h, hi, he of the channel (lua/lib/history.lua): deleted too
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel id
Returns: deleted_count (messages deleted)
Errors:  CHANNEL_NOT_FOUND
]]
local k = account_keys(1)
local ch = channel_keys(7)
if redis.call('HEXISTS', k.channels, ARGV[1]) == 0 then
  return redis.error_reply('CHANNEL_NOT_FOUND')
end
local count = drop_messages(k, ch, ARGV[1])
redis.call('UNLINK', ch.d, ch.dx, ch.sn, KEYS[14])
history_drop(k, history_keys(15))
redis.call('HDEL', k.channels, ARGV[1])
redis.call('HDEL', k.account, 'n:' .. ARGV[1])
redis.call('ZREM', k.timers, ARGV[1])
local hooks = redis.call('HGETALL', KEYS[13])
for i = 1, #hooks, 2 do
  local id = hooks[i]
  if not string.find(id, ':', 1, true) and cjson.decode(hooks[i + 1]).channel == ARGV[1] then
    redis.call('HDEL', KEYS[13], id, id .. ':created', id .. ':count', id .. ':last', id .. ':refusal')
  end
end
local configs = redis.call('HGETALL', k.channels)
for i = 1, #configs, 2 do
  local max_attempts, dedup_window, dlq, created, tail = parse_config(configs[i + 1])
  if dlq == ARGV[1] then
    redis.call('HSET', k.channels, configs[i], format_config(max_attempts, dedup_window, '', created, tail))
  end
end
return count
