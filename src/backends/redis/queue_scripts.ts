/**
 * The Lua scripts of `RedisWebhookQueue`: claiming a due job, settling or renewing a claim (only by the
 * worker that holds it), enqueueing, and requeueing a dead letter. Internal to `./redis`.
 *
 * Keys, under `<prefix>webhook_queue:`: `ready` (sorted set: job id by due time), `inflight` (sorted set:
 * job id by claim deadline), `jobs` (hash: job id to job JSON), `owners` (hash: job id to the claim's
 * token), `dead_letters` (hash: job id to entry JSON) and `dead_letter_order` (sorted set by time).
 *
 * @module
 */

import { RedisScript } from "./script.ts";

// Jobs whose claim ran out go back to the ready set; then the first due job is claimed for `deadline`.
// KEYS: ready, inflight, jobs, owners. ARGV: now, deadline, owner token.
export const CLAIM = new RedisScript(`
local lost = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 100)
for _, id in ipairs(lost) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZADD', KEYS[1], ARGV[1], id)
end
while true do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
  if #due == 0 then return false end
  local id = due[1]
  redis.call('ZREM', KEYS[1], id)
  local job = redis.call('HGET', KEYS[3], id)
  if job then
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    redis.call('HSET', KEYS[4], id, ARGV[3])
    return job
  end
end
`);

// Settle a claimed job, only while this worker still owns it (else another worker took it over).
// KEYS: ready, inflight, jobs, owners, dead letters, dead-letter order.
// ARGV: id, owner token, action (done | retry | dead | renew), json (retry: job, dead: entry), score.
export const SETTLE = new RedisScript(`
local id = ARGV[1]
if redis.call('HGET', KEYS[4], id) ~= ARGV[2] then return 0 end
if ARGV[3] == 'renew' then
  redis.call('ZADD', KEYS[2], ARGV[5], id)
  return 1
end
redis.call('ZREM', KEYS[2], id)
redis.call('HDEL', KEYS[4], id)
if ARGV[3] == 'retry' then
  redis.call('HSET', KEYS[3], id, ARGV[4])
  redis.call('ZADD', KEYS[1], ARGV[5], id)
else
  redis.call('HDEL', KEYS[3], id)
  if ARGV[3] == 'dead' then
    redis.call('HSET', KEYS[5], id, ARGV[4])
    redis.call('ZADD', KEYS[6], ARGV[5], id)
  end
end
return 1
`);

// KEYS: ready, jobs. ARGV: id, job json, due time.
export const ENQUEUE = new RedisScript(`
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`);

// KEYS: ready, jobs, dead letters, dead-letter order. ARGV: id, job json, due time.
export const REQUEUE = new RedisScript(`
if redis.call('HDEL', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`);
