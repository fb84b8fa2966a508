--[[
replay_progress: record a step of a running bulk replay job by the pod that holds its
lease, and renew the lease; the job is done when every matched message was passed.
KEYS[1] jobs: hash job id -> job json                    (rq:{a}:c:<channel>:replays)
KEYS[2] lease: string, the pod that runs the job now     (rq:{a}:c:<channel>:replay_lease)
ARGV[1] pod: the pod's id
ARGV[2] job_id: the job
ARGV[3] passed: integer, matched messages passed in this step (the cursor moves on by it)
ARGV[4] replayed: integer, copies stored in this step
ARGV[5] lease_ms: integer
Returns: the job's state after the step: 'running', 'done', 'cancelled', 'failed', or
         'lost' (another pod holds the lease now: nothing was recorded)
Errors:  none
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'lost' end
local text = redis.call('HGET', KEYS[1], ARGV[2])
if not text then
  redis.call('DEL', KEYS[2])
  return 'cancelled'
end
local job = cjson.decode(text)
if job.state ~= 'running' then
  redis.call('DEL', KEYS[2])
  return job.state
end
job.cursor = job.cursor + tonumber(ARGV[3])
job.replayed = job.replayed + tonumber(ARGV[4])
if job.cursor >= job.matched then
  job.state = 'done'
  job.finished_at = now_ms()
  redis.call('DEL', KEYS[2])
else
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[5]))
end
redis.call('HSET', KEYS[1], ARGV[2], cjson.encode(job))
return job.state
