--[[
announce_channel: publish a channel's coalesced new_message once its fan-out
window has ended (run by the pod whose send or sweep left it pending; the
sweeper is the backup). Publishes nothing when no announcement is pending.
KEYS[1..6] account keys: account, channels, timers, usage, events, tokens
ARGV[1] channel id
ARGV[2] fan-out window ms (integer)
Returns: false when nothing is pending any more (published now or by someone else),
         else the ms until the window ends (call again then)
Errors:  none
]]
local k = account_keys(1)
local channel = ARGV[1]
local now = now_ms()
local last, pending = fanout_state(k, channel)
if not pending then return false end
local due = last + tonumber(ARGV[2])
if now < due then return due - now end
publish_now(k, channel, now)
return false
