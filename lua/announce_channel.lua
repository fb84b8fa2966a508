--[[
announce_channel: publish a channel's coalesced new_message once its fan-out
window has ended (run by the pod whose send or sweep left it pending; the
sweeper is the backup). Publishes nothing when no announcement is pending.
The event's count is the number of the channel's messages still available (the
sends it stands for may have been pulled meanwhile: then 0, and no long poll wakes).
KEYS[1..6]  account keys: account, channels, timers, usage, events, tokens
KEYS[7..12] channel keys: q, f, m, x, d, dx of the channel (q and f are read)
ARGV[1] channel: the channel id
ARGV[2] fanout_window_ms: the fan-out window (integer)
Returns: false when nothing is pending any more (published now or by someone else),
         else the ms until the window ends (call again then)
Errors:  none
]]
local k = account_keys(1)
local ch = channel_keys(7)
local channel = ARGV[1]
local now = now_ms()
local last, pending = fanout_state(k, channel)
if not pending then return false end
local due = last + tonumber(ARGV[2])
if now < due then return due - now end
publish_now(k, channel, now, available_count(ch, now))
return false
