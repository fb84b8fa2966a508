--[[
extend: give in-flight messages a new lease deadline, now + visibility timeout.
A lease is extended only while it is the message's current lease and its
message is still in flight (the old deadline has not passed). The lease id stays.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx
KEYS[13..14] caller keys: rate, token_rate
ARGV[1..3] caller: token_id, proof, rate (lua/lib/caller.lua)
ARGV[4] channel: the channel id
ARGV[5] must_exist: '1' to refuse a channel that does not exist (SQS), '0' to extend nothing
ARGV[6] visibility_timeout_ms: integer, or '' for the channel's setting, else the default
ARGV[7..] lease_ids: the leases to extend
Returns: { extended_count, lowered_due_ms or false }
Errors:  the caller's (lua/lib/caller.lua); CHANNEL_NOT_FOUND (must_exist)
]]
local k = account_keys(1)
local ch = channel_keys(7)
local channel = ARGV[4]
local now = now_ms()
local caller = check_caller(k, KEYS[13], KEYS[14], channel, now)
if caller.err then return caller end
local vt = tonumber(ARGV[6])
if not vt or ARGV[5] == '1' then
  local cfg = redis.call('HGET', k.channels, channel)
  if not cfg and ARGV[5] == '1' then return redis.error_reply('CHANNEL_NOT_FOUND') end
  vt = vt or (cfg and parse_settings(cfg).visibility_ms) or DEFAULT_VISIBILITY_MS
end
local deadline = now + vt
local extended = 0
local seen = {}
for i = 7, #ARGV do
  local lease = ARGV[i]
  if #lease == 34 and not seen[lease] then
    seen[lease] = true
    local seq, nonce = string.sub(lease, 1, 12), string.sub(lease, 13)
    local rec = redis.call('HGET', ch.m, seq)
    if rec then
      local _, current = record_head(rec)
      local old = redis.call('ZSCORE', ch.f, seq)
      if current == nonce and old and tonumber(old) > now then
        redis.call('ZADD', ch.f, deadline, seq)
        extended = extended + 1
      end
    end
  end
end
local lowered = false
if extended > 0 then
  lowered = schedule(k.timers, channel, deadline)
end
return { extended, lowered }
