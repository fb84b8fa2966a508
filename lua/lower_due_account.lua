--[[
lower_due_account: make sure the global due index will visit an account no
later than due_ms (called after a script reported that it lowered the
account's earliest timer, and after every sweep).
KEYS[1] due index   rq:{~sys}:due
ARGV[1] account id
ARGV[2] due ms (integer)
Returns: 1
Errors:  none
]]
redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1])
return 1
