--[[
due_channels: the channels of an account whose timer has come due, with the
dead-letter channel each is configured with, so that the caller can pass that
channel's keys to sweep_channel. Reads only.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] limit: integer
Returns: { channel, dead_letter_channel ('' for none), ... }
Errors:  none
]]
local k = account_keys(1)
local due = redis.call('ZRANGEBYSCORE', k.timers, '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[1]))
local out = {}
for _, channel in ipairs(due) do
  local cfg = redis.call('HGET', k.channels, channel)
  local dlq = ''
  if cfg then
    local _, _, configured = parse_config(cfg)
    dlq = configured
  end
  out[#out + 1] = channel
  out[#out + 1] = dlq
end
return out
