-- The caller of a request, checked inside the script that serves it, so that a request costs
-- one call: token, expiry, revocation (the record is gone), a session's sign-in token, the
-- channel scope and the rate limits. Prepended after common.lua to every script (with the plan
-- prelude before both: PLANS, the configured plans' limits by name, and DEFAULT_PLAN, written
-- by src/store/scripts/plans.ts from the validated configuration).
--
-- Scripts that take a caller take these first three ARGV and, after their own keys, the two
-- caller keys (rate = rq:{a}:rate, token_rate = rq:{a}:rate:<token id>):
--   token_id  the token's id (for an account caller: the name of its rate counter)
--   proof     'secret:<sha256 hex of the secret>' (bearer token or dashboard session),
--             'aws:<access key id>' (an SQS request whose signature the pod verified with that
--             key's derived secret), or 'account' (a webhook URL, verified by the pod)
--   rate      '1': count the request against the rate limits; '0': already counted (a long
--             poll's later pulls, a second call of one request)
-- Refusals are answered before anything is written (a refused request is not counted):
--   AUTH_INVALID; TOKEN_EXPIRED; SESSION_EXPIRED; SESSION_ENDED; CHANNEL_SCOPE <channel>;
--   RATE_LIMITED account <wait_ms> <rate_limit_per_second> <rate_limit_burst>;
--   RATE_LIMITED token <wait_ms> <the token's rate_limit_per_second>

local function plan_limits(plan)
  return PLANS[plan] or PLANS[DEFAULT_PLAN]
end

-- The limits of the account's plan (k: account_keys): plan limits reach a script only this way.
local function account_limits(k)
  return plan_limits(redis.call('HGET', k.account, 'plan') or DEFAULT_PLAN)
end

local refuse = redis.error_reply

local function set(value)
  return value ~= nil and value ~= cjson.null
end

-- A fixed window's wait (ms) when it is full, else false. A refused request is not counted.
local function rate_full(key, limit, window)
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

local function rate_count(key, limit, window)
  if limit <= 0 then return end
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, window) end
end

-- A rate with its burst as a fixed window: at most limit requests per window ms
-- (rateWindow in src/limits/accountLimits.ts; a token's rate has no burst).
local function token_window(per_second)
  local limit = math.max(1, per_second)
  return limit, math.max(1, math.floor(1000 * limit / per_second + 0.5))
end

local function expired(record, now)
  return set(record.expires_ms) and tonumber(record.expires_ms) <= now
end

-- Checks the caller (ARGV[1..3], caller keys rate_key and token_rate_key) for a request on
-- channel ('' or nil: no channel) and counts it. Returns { plan = name, limits = the plan's
-- limits, json = the token record's json or false, token = that record decoded or false },
-- or a refusal (an error reply: the script answers it as it is, `if caller.err`).
local function check_caller(k, rate_key, token_rate_key, channel, now)
  local token_id, proof, count = ARGV[1], ARGV[2], ARGV[3]
  local plan = redis.call('HGET', k.account, 'plan')
  local json, token = false, false
  if proof ~= 'account' then
    json = redis.call('HGET', k.tokens, token_id)
    if not json or not plan then return refuse('AUTH_INVALID') end
    token = cjson.decode(json)
    local kind, value = string.match(proof, '^(%a+):(.*)$')
    if kind == 'secret' then
      if token.hash ~= value then return refuse('AUTH_INVALID') end
    elseif kind ~= 'aws' or token.aws_access_key_id ~= value then
      return refuse('AUTH_INVALID')
    end
    if expired(token, now) then
      return refuse(token.kind == 'session' and 'SESSION_EXPIRED' or 'TOKEN_EXPIRED')
    end
    if set(token.parent_id) then
      local parent = redis.call('HGET', k.tokens, token.parent_id)
      if not parent or expired(cjson.decode(parent), now) then return refuse('SESSION_ENDED') end
    end
    if channel and channel ~= '' and set(token.channels) then
      local allowed = false
      for _, c in ipairs(token.channels) do
        if c == channel then allowed = true break end
      end
      if not allowed then return refuse('CHANNEL_SCOPE ' .. channel) end
    end
  elseif not plan then
    return refuse('AUTH_INVALID')
  end
  local limits = plan_limits(plan)
  if count == '1' then
    local token_limit, token_ms = 0, 1
    if token and set(token.rate_limit_per_second) and token.rate_limit_per_second > 0 then
      token_limit, token_ms = token_window(token.rate_limit_per_second)
    end
    local wait = rate_full(rate_key, limits.rate_limit, limits.rate_window_ms)
    if wait then
      return refuse('RATE_LIMITED account ' .. wait .. ' ' .. limits.rate_limit_per_second .. ' ' .. limits.rate_limit)
    end
    wait = rate_full(token_rate_key, token_limit, token_ms)
    if wait then
      return refuse('RATE_LIMITED token ' .. wait .. ' ' .. token.rate_limit_per_second)
    end
    rate_count(rate_key, limits.rate_limit, limits.rate_window_ms)
    rate_count(token_rate_key, token_limit, token_ms)
  end
  return { plan = plan, limits = limits, json = json, token = token }
end
