--[[
lower_due_account: make sure the due index will visit an account no later
than due_ms (called after a script reported that it lowered the account's
earliest timer, after every sweep, and by the repair pass). Idempotent.
KEYS[1..1] due keys: due (rq:{~dueN}:due, the due index of the account's partition)
ARGV[1] account: the account id
ARGV[2] due_ms: integer
Returns: 1 when the entry was added or lowered, else 0
Errors:  none
]]
return redis.call('ZADD', KEYS[1], 'LT', 'CH', ARGV[2], ARGV[1])
