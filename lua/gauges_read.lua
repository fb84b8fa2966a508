--[[
gauges_read: the service-wide gauges for one scrape, in O(log accounts). Reads only.
KEYS[1..4] totals keys: gauges, gauge_oldest, accounts, gauge_expiry (rq:{~sys}:...): the
           hash of service-wide totals, zset account -> oldest message ms, the set of
           every account id, zset account -> next expiry ms
ARGV    none
Returns: { queued, delayed, in_flight, dead_letter, storage_bytes, channels, accounts,
           oldest_message_ms or false, now_ms, next_expiry_ms or false, groups_ready,
           groups_blocked }
Errors:  none
]]
-- one read of the totals (the group counts included): a scrape's cost stays constant
local v = redis.call('HMGET', KEYS[1], 'queued', 'delayed', 'in_flight', 'dead_letter',
  'storage_bytes', 'channels', 'groups_ready', 'groups_blocked')
local out = {}
for i = 1, 6 do out[i] = tonumber(v[i] or '0') end
out[7] = redis.call('SCARD', KEYS[3])
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
out[8] = false
if first[2] then out[8] = tonumber(first[2]) end
out[9] = now_ms()
local soonest = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
out[10] = false
if soonest[2] then out[10] = tonumber(soonest[2]) end
out[11] = tonumber(v[7] or '0')
out[12] = tonumber(v[8] or '0')
return out
