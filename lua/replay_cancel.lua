--[[
replay_cancel: cancel a bulk replay job that is queued or running (its runner stores no
new copy once it sees the state: before each copy it checks it); a job that ended stays as
it is.
KEYS[1..3] replay keys: jobs, order, lease (rq:{a}:c:<channel>:replays, :replay_order,
           :replay_lease; src/store/keys.ts replayKeys): only jobs is used here
ARGV[1] job_id: the job
Returns: the job json after the change
Errors:  REPLAY_NOT_FOUND
]]
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return redis.error_reply('REPLAY_NOT_FOUND') end
local job = cjson.decode(text)
if job.state == 'queued' or job.state == 'running' then
  job.state = 'cancelled'
  job.finished_at = now_ms()
  text = cjson.encode(job)
  redis.call('HSET', KEYS[1], ARGV[1], text)
end
return text
