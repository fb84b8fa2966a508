--[[
rate_limit: count one request of an account (and of its token, when the token
has a lower limit of its own) in the current fixed windows, so that the limits
hold across every pod and every token. A refused request is not counted.
KEYS[1] account counter  rq:{account}:rate          (string: requests in the window; expires with it)
KEYS[2] token counter    rq:{account}:rate:<token>  (same, for the token's own limit)
ARGV[1] account limit: requests allowed per account window (integer; 0: no account limit)
ARGV[2] account window length (ms, integer)
ARGV[3] token limit: requests allowed per token window (integer; 0: no token limit)
ARGV[4] token window length (ms, integer)
Returns: { 0 } when the request is allowed, else { ms until the full window ends, 'account' or 'token' }
Errors:  none
]]
local function full(key, limit, window)
  if limit <= 0 then return false end
  local n = tonumber(redis.call('GET', key) or '0')
  if n < limit then return false end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, window)
    ttl = window
  end
  return ttl
end

local function count(key, limit, window)
  if limit <= 0 then return end
  if redis.call('INCR', KEYS[key]) == 1 then redis.call('PEXPIRE', KEYS[key], window) end
end

local account_limit, account_window = tonumber(ARGV[1]), tonumber(ARGV[2])
local token_limit, token_window = tonumber(ARGV[3]), tonumber(ARGV[4])
local wait = full(KEYS[1], account_limit, account_window)
if wait then return { wait, 'account' } end
wait = full(KEYS[2], token_limit, token_window)
if wait then return { wait, 'token' } end
count(1, account_limit, account_window)
count(2, token_limit, token_window)
return { 0 }
