--[[
authorize: check a request's caller and count it against the rate limits, for the requests
whose operation is not one script call (account, channels, webhooks CRUD, WebSocket upgrades,
a request refused for its body). The queue scripts do the same check themselves.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
KEYS[7..8] caller keys: rate, token_rate
ARGV[1..3] caller: token_id, proof, rate (lua/lib/caller.lua)
ARGV[4] channel: the channel the request uses, checked against the token's scope ('' for none)
Returns: { token record json (false for an account caller), plan name }
Errors:  AUTH_INVALID; TOKEN_EXPIRED; SESSION_EXPIRED; SESSION_ENDED; CHANNEL_SCOPE <channel>;
         RATE_LIMITED account|token <wait_ms> ... (lua/lib/caller.lua)
]]
local k = account_keys(1)
local caller = check_caller(k, KEYS[7], KEYS[8], ARGV[4], now_ms())
if caller.err then return caller end
return { caller.json, caller.plan }
