--[[
gauges_fold: fold one account's snapshot (from account_gauges) into the
service-wide gauges: the totals change by the difference to the snapshot
folded before. A snapshot not newer than the one folded is ignored, so folding
is idempotent and pods may fold the same account concurrently, in any order.
KEYS[1..4] fold keys: gauges, gauge_accounts, gauge_oldest, gauge_expiry (rq:{~sys}:...):
           the hash of service-wide totals, hash account -> last folded
           ("version_us|queued|delayed|in_flight|dead_letter|storage_bytes|channels|groups_ready|groups_blocked";
           rows folded before message groups end at channels: their group counts were 0), zset
           account -> oldest message ms, zset account -> its next retention expiry ms
ARGV[1] account: the account id
ARGV[2] version_us: of the snapshot
ARGV[3] queued: integer
ARGV[4] delayed: integer
ARGV[5] in_flight: integer
ARGV[6] dead_letter: integer
ARGV[7] storage_bytes: integer
ARGV[8] channels: integer
ARGV[9] oldest_ms: the oldest message's send ms ('' for none)
ARGV[10] next_expiry_ms: the next retention expiry ('' for none)
ARGV[11] groups_ready: message groups not blocked (integer; absent: 0)
ARGV[12] groups_blocked: message groups whose head is in flight or waiting for a retry (integer; absent: 0)
Returns: 1 when folded, 0 when an equal or newer snapshot was folded before
Errors:  none
]]
local FIELDS = { 'queued', 'delayed', 'in_flight', 'dead_letter', 'storage_bytes', 'channels',
                 'groups_ready', 'groups_blocked' }
local account = ARGV[1]
local version = tonumber(ARGV[2])
local before = redis.call('HGET', KEYS[2], account)
local old = { 0, 0, 0, 0, 0, 0, 0, 0 }
if before then
  local parts = {}
  for part in string.gmatch(before, '[^|]+') do parts[#parts + 1] = tonumber(part) end
  if parts[1] >= version then return 0 end
  for i = 1, 8 do old[i] = parts[i + 1] or 0 end
end
-- the snapshot's values in FIELDS order (ARGV[3..8], then ARGV[11..12])
local values = {}
for i = 1, 6 do values[i] = ARGV[2 + i] end
values[7], values[8] = ARGV[11] or '0', ARGV[12] or '0'
local row = { ARGV[2] }
for i = 1, 8 do
  local value = tonumber(values[i])
  local delta = value - old[i]
  if delta ~= 0 then redis.call('HINCRBY', KEYS[1], FIELDS[i], delta) end
  row[#row + 1] = values[i]
end
redis.call('HSET', KEYS[2], account, table.concat(row, '|'))
for i, key in ipairs({ KEYS[3], KEYS[4] }) do
  local ms = ARGV[8 + i]
  if ms == '' then
    redis.call('ZREM', key, account)
  else
    redis.call('ZADD', key, ms, account)
  end
end
return 1
