--[[
channel_configure: set a channel's configuration and settings, creating the
channel (and its dead-letter channel) if needed, within the plan's channel limit.
Resuming a paused channel that has messages available announces them (one
new_message with their count), so long polls and WebSocket subscribers wake.
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel
KEYS[13..15] history keys: h, hi, he of the channel (lua/lib/history.lua): deleted when
            history_seconds is turned off
Not in KEYS: each channel's message-group keys (gn, gl, gw, ga, g:<group>, sn: lua/lib/common.lua
channel_keys) are named from its q key under the account's hash tag; g:<group> is one key per
group, known only at run time, so they cannot be declared as a KEYS group.
ARGV[1] channel: the channel id
ARGV[2] max_attempts: '' keeps the current value
ARGV[3] dedup_window_seconds: '' keeps the current value
ARGV[4] dlq_mode: 'keep', 'clear' or 'set': what to do with the dead-letter channel
ARGV[5] dead_letter_channel: the dead-letter channel id (with 'set')
ARGV[6] paused: '1', '0', or '' to keep
ARGV[7] visibility_timeout_ms: integer, '-' to reset to the default, '' to keep
ARGV[8] delay_ms: integer, '-' to reset to the default, '' to keep
ARGV[9] retention_ms: integer, '-' to reset to the default, '' to keep
ARGV[10] receive_wait_ms: (SQS ReceiveMessageWaitTimeSeconds) integer, '-' to reset, '' to keep
ARGV[11..] named settings to change, each 'name=value' (value without '|'); 'name=' removes it
The plan's max_channels comes from PLANS.
Returns: the config string
Errors:  ACCOUNT_GONE (the caller's account was deleted); CHANNEL_LIMIT <max_channels>;
         GROUP_ORDER_BUSY <groups> (group_order would change while the channel holds grouped
         messages: their bookkeeping differs between the two orders, docs/api/groups.md)
]]
local k = account_keys(1)
local ch = channel_keys(7)
local channel = ARGV[1]
local max_channels = account_limits(k).max_channels
if redis.call('EXISTS', k.account) == 0 then
  return redis.error_reply('ACCOUNT_GONE')
end
local now = now_ms()
local cfg = redis.call('HGET', k.channels, channel)
local new_channels = 0
if not cfg then new_channels = 1 end
local dlq_new = ARGV[4] == 'set' and ARGV[5] ~= channel
  and redis.call('HEXISTS', k.channels, ARGV[5]) == 0
if dlq_new then new_channels = new_channels + 1 end
if new_channels > 0 and redis.call('HLEN', k.channels) + new_channels > max_channels then
  return redis.error_reply('CHANNEL_LIMIT ' .. max_channels)
end
local max_attempts, dedup_window, dlq, created = DEFAULT_MAX_ATTEMPTS, DEFAULT_DEDUP_WINDOW_S, '', now
local settings = { paused = false }
if cfg then
  max_attempts, dedup_window, dlq, created = parse_config(cfg)
  settings = parse_settings(cfg)
end
local was_paused = settings.paused
if ARGV[2] ~= '' then max_attempts = tonumber(ARGV[2]) end
if ARGV[3] ~= '' then dedup_window = tonumber(ARGV[3]) end
if ARGV[4] == 'clear' then dlq = '' elseif ARGV[4] == 'set' then dlq = ARGV[5] end
if ARGV[6] ~= '' then settings.paused = ARGV[6] == '1' end
local function apply(current, arg)
  if arg == '' then return current end
  if arg == '-' then return nil end
  return tonumber(arg)
end
settings.visibility_ms = apply(settings.visibility_ms, ARGV[7])
settings.delay_ms = apply(settings.delay_ms, ARGV[8])
settings.retention_ms = apply(settings.retention_ms, ARGV[9])
settings.receive_wait_ms = apply(settings.receive_wait_ms, ARGV[10])
settings.named = settings.named or {}
for i = 11, #ARGV do
  local name, value = string.match(ARGV[i], '^([%w_]+)=([^|]*)$')
  if name then settings.named[name] = value ~= '' and value or nil end
end
local function order_of(named) return named.group_order == 'fair' and 'fair' or 'strict' end
if cfg and order_of(parse_settings(cfg).named) ~= order_of(settings.named) then
  local groups = redis.call('HLEN', ch.gn)
  if groups > 0 then return redis.error_reply('GROUP_ORDER_BUSY ' .. groups) end
end
local updated = format_config(max_attempts, dedup_window, dlq, created, format_settings(settings))
redis.call('HSET', k.channels, channel, updated)
if not tonumber(settings.named.history_seconds or '') or tonumber(settings.named.history_seconds) <= 0 then
  history_drop(k, history_keys(13))
end
if dlq_new then
  redis.call('HSET', k.channels, ARGV[5], format_config(DEFAULT_MAX_ATTEMPTS, DEFAULT_DEDUP_WINDOW_S, '', now))
end
if was_paused and not settings.paused then
  local available = available_count(ch, now)
  if available > 0 then publish_now(k, channel, now, available) end
end
return updated
