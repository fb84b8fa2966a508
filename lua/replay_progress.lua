--[[
replay_progress: record a step of a running bulk replay job by the pod that holds its
lease, and renew the lease; the job is done when every matched message was passed.
KEYS[1..3] replay keys: jobs, order, lease of the channel (src/store/keys.ts replayKeys;
           order is not used here)
ARGV[1] pod: the pod's id
ARGV[2] job_id: the job
ARGV[3] passed: integer, matched messages passed in this step (the cursor moves on by it)
ARGV[4] replayed: integer, copies stored in this step
ARGV[5] lease_ms: integer
Returns: the job's state after the step: 'running', 'done', 'cancelled', 'failed', or
         'lost' (another pod holds the lease now: nothing was recorded)
Errors:  none
]]
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 'lost' end
local text = redis.call('HGET', KEYS[1], ARGV[2])
if not text then
  redis.call('DEL', KEYS[3])
  return 'cancelled'
end
local job = cjson.decode(text)
if job.state ~= 'running' then
  redis.call('DEL', KEYS[3])
  return job.state
end
job.cursor = job.cursor + tonumber(ARGV[3])
job.replayed = job.replayed + tonumber(ARGV[4])
if job.cursor >= job.matched then
  job.state = 'done'
  job.finished_at = now_ms()
  redis.call('DEL', KEYS[3])
else
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[5]))
end
redis.call('HSET', KEYS[1], ARGV[2], cjson.encode(job))
return job.state
