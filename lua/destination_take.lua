--[[
destination_take: lease the messages a channel's destination may be sent now, as a pull
does (a lease per message, deadline now + lease_ms), within its flow control, counted
atomically across every pod: at most parallelism - (leases in flight) messages, at most
rate_limit.count request starts in any period_seconds window (counted over a window 2 % longer,
at most 1 s longer, for the jitter on the way to the receiver; spread over it in min(count, 100)
parts; lua/lib/destination.lua), nothing while its circuit
breaker is open (then one probe at a time), nothing while it or its channel is paused or
it is disabled. With parallelism 1 the message at the head of the line (the one being
tried) is the only one leased until it is acknowledged or given up on. The record's own
attempts count is not changed (the destination counts its attempts itself, field
a:<uuid>), so the channel's max_attempts does not apply to the destination's deliveries.
KEYS[1..6]   account keys: account, channels, timers, usage, events, tokens
KEYS[7..12]  channel keys: q, f, m, x, d, dx of the destination's channel
KEYS[13..16] destination keys: destination, attempts, window, dead
KEYS[17..19] history keys: h, hi, he of the channel (lua/lib/history.lua): a message past its
             retention ends there as expired
ARGV[1] channel: the channel id
ARGV[2] id: the destination's id
ARGV[3] max: most messages to lease in this call (integer)
ARGV[4] nonces: max random strings of 22 characters, concatenated
Returns: { status ('ok', 'idle' (paused, disabled, nothing to send), 'wait' (a window, the
           breaker or a retry), 'gone' (no such destination or channel)), wait_ms,
           {lease_id, record, attempt, ...}, lowered_due_ms or false }
Errors:  none
]]
local k = account_keys(1)
local ch = channel_keys(7)
return destination_lease(k, ch, KEYS[13], KEYS[15], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4],
  now_ms(), 17)
