/**
 * The Lua scripts of `RedisStore`: each write of a record and its index entries is one script, so it is
 * atomic for every reader and writer. Internal to `./redis`.
 *
 * Every script gets `base` (`<prefix><kind>:`) and builds the key names from it, because the index keys
 * depend on what the record held before.
 *
 * @module
 */

import { RedisScript } from "./script.ts";

// ARGV: base, id, json, status, instance, createdAt, updatedAt, mode (save | update), expected updatedAt.
export const PUT_OUTBOUND = new RedisScript(`
local base, id = ARGV[1], ARGV[2]
local rec = base .. 'rec:' .. id
local old = redis.call('HMGET', rec, 'status', 'instance', 'updatedAt')
if ARGV[8] == 'update' and old[3] ~= ARGV[9] then return 0 end
if old[1] then
  redis.call('ZREM', base .. 'by_status:' .. old[1], id)
  redis.call('ZREM', base .. 'by_instance:' .. old[2], id)
  redis.call('ZREM', base .. 'by_status_instance:' .. old[1] .. ':' .. old[2], id)
end
redis.call('HSET', rec, 'json', ARGV[3], 'status', ARGV[4], 'instance', ARGV[5], 'createdAt', ARGV[6],
  'updatedAt', ARGV[7])
redis.call('ZADD', base .. 'by_time', ARGV[6], id)
redis.call('ZADD', base .. 'by_status:' .. ARGV[4], ARGV[6], id)
redis.call('ZADD', base .. 'by_instance:' .. ARGV[5], ARGV[6], id)
redis.call('ZADD', base .. 'by_status_instance:' .. ARGV[4] .. ':' .. ARGV[5], ARGV[6], id)
return 1
`);

// ARGV: base, id, json, time. Only when absent (inbound messages are saved once).
export const ADD_ONCE = new RedisScript(`
local rec = ARGV[1] .. 'rec:' .. ARGV[2]
if redis.call('EXISTS', rec) == 1 then return 0 end
redis.call('HSET', rec, 'json', ARGV[3])
redis.call('ZADD', ARGV[1] .. 'by_time', ARGV[4], ARGV[2])
return 1
`);

// ARGV: base, id, json, time, status ('' for kinds without a status index).
export const PUT = new RedisScript(`
local base, id = ARGV[1], ARGV[2]
local rec = base .. 'rec:' .. id
local old = redis.call('HGET', rec, 'status')
if old and old ~= '' then redis.call('ZREM', base .. 'by_status:' .. old, id) end
redis.call('HSET', rec, 'json', ARGV[3], 'status', ARGV[5])
redis.call('ZADD', base .. 'by_time', ARGV[4], id)
if ARGV[5] ~= '' then redis.call('ZADD', base .. 'by_status:' .. ARGV[5], ARGV[4], id) end
return 1
`);

// ARGV: base, exclusive upper time bound, batch size. Deletes up to one batch of records older than the
// bound with their index entries; returns { index entries seen, records deleted }.
export const PRUNE = new RedisScript(`
local base = ARGV[1]
local ids = redis.call('ZRANGEBYSCORE', base .. 'by_time', '-inf', '(' .. ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local deleted = 0
for _, id in ipairs(ids) do
  local rec = base .. 'rec:' .. id
  local held = redis.call('HMGET', rec, 'json', 'status', 'instance')
  if held[1] then
    deleted = deleted + 1
    if held[2] and held[2] ~= '' then
      redis.call('ZREM', base .. 'by_status:' .. held[2], id)
      if held[3] then
        redis.call('ZREM', base .. 'by_instance:' .. held[3], id)
        redis.call('ZREM', base .. 'by_status_instance:' .. held[2] .. ':' .. held[3], id)
      end
    end
    redis.call('DEL', rec)
  end
  redis.call('ZREM', base .. 'by_time', id)
end
return { #ids, deleted }
`);
