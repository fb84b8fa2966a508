--[[
holder_release: give back places taken with holder_acquire.
KEYS[1..1] holders keys: holders (rq:{account}:holders:<kind>, zset holder id -> lease end ms)
ARGV[1..n] holder ids (strings)
Returns: how many places were given back
Errors:  none
]]
return redis.call('ZREM', KEYS[1], unpack(ARGV))
