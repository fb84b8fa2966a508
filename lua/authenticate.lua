--[[
authenticate: read what checking a request's bearer token needs. Reads only;
the caller compares the secret's hash in constant time.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] token id
Returns: { token record json or false, plan or false }
Errors:  none
]]
local k = account_keys(1)
return { redis.call('HGET', k.tokens, ARGV[1]), redis.call('HGET', k.account, 'plan') }
