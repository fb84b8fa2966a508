--[[
webhook_refused: note a delivery a webhook URL refused (a signature that does not verify, a
body over the plan's max_webhook_bytes) and count it in the webhook's own refusal window, the
plan's webhook_refusals_per_second: refusals never count against the account's rate, and a
leaked URL flooded with forgeries costs the account nothing but this window.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
KEYS[7..7] webhooks keys: webhooks (rq:{a}:webhooks)
KEYS[8..8] refusals keys: refusals (rq:{a}:hookrefusals:<webhook id>, the window's counter)
ARGV[1] webhook_id: the webhook the delivery came to
ARGV[2] reason: the check that failed, one line (never a secret, the body or the URL key)
Returns: { 1 when the refusal is within the window (and noted as the webhook's last_refusal),
           0 when the window is full, -1 when the webhook no longer exists;
           ms until the window ends (0 when within it) }
Errors:  none
]]
local k = account_keys(1)
local hooks, window = KEYS[7], KEYS[8]
if redis.call('HEXISTS', hooks, ARGV[1]) == 0 then return { -1, 0 } end
local limits = account_limits(k)
local per_second = limits.webhook_refusals_per_second
local n = tonumber(redis.call('GET', window) or '0')
if per_second > 0 and n >= per_second then
  local ttl = redis.call('PTTL', window)
  if ttl < 0 then
    redis.call('PEXPIRE', window, 1000)
    ttl = 1000
  end
  return { 0, ttl }
end
if redis.call('INCR', window) == 1 then redis.call('PEXPIRE', window, 1000) end
redis.call('HSET', hooks, ARGV[1] .. ':refusal', now_ms() .. '|' .. ARGV[2])
return { 1, 0 }
