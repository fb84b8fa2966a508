--[[
replay_claim: take, or keep, the lease on a channel's current bulk replay job (the first
of its jobs, in creation order, that is queued or running: one runs at a time per channel).
A queued job becomes running (started_at = now). Jobs that ended leave the order.
KEYS[1..3] replay keys: jobs, order, lease of the channel (src/store/keys.ts replayKeys):
           jobs a hash job id -> job json, order a zset job id -> created ms,
           lease a string: the pod that runs the job now
ARGV[1] pod: the claiming pod's id
ARGV[2] lease_ms: integer, how long the lease lasts unless renewed (replay_progress)
Returns: the job json when this pod is to run it now, false when no job waits or another
         pod holds a lease that has not lapsed; { false } when the channel has no job left
Errors:  none
]]
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
local job, id = nil, nil
for _, candidate in ipairs(ids) do
  local text = redis.call('HGET', KEYS[1], candidate)
  local j = text and cjson.decode(text)
  if j and (j.state == 'queued' or j.state == 'running') then
    job, id = j, candidate
    break
  end
  redis.call('ZREM', KEYS[2], candidate)
end
if not job then
  redis.call('DEL', KEYS[3])
  return { false }
end
local holder = redis.call('GET', KEYS[3])
if holder and holder ~= ARGV[1] then return false end
redis.call('SET', KEYS[3], ARGV[1], 'PX', tonumber(ARGV[2]))
if job.state == 'queued' then
  job.state = 'running'
  job.started_at = now_ms()
  redis.call('HSET', KEYS[1], id, cjson.encode(job))
end
return cjson.encode(job)
