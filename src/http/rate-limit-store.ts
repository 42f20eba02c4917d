import type { Redis } from 'ioredis';

/** One fixed window per key: the first hit starts it, later hits count within it. */
const INCREMENT = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {current, tonumber(ARGV[1])}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

type Counted = { current: number; ttl: number };
type RedisWithCounter = Redis & { heraldRateLimit(key: string, windowMs: number): Promise<[number, number]> };

/**
 * The shared rate-limit counters of a scale-out deployment, for `@fastify/rate-limit`'s `store`
 * option. Keys are `ratelimit:<route>|<who>` under the connection's own prefix (REDIS_PREFIX),
 * whatever limiter asks: the library's own Redis store adds the route a second time, from
 * options that a limiter made with `createRateLimit` does not have.
 */
export function sharedRateLimitStore(redis: Redis) {
  const client = redis as RedisWithCounter;
  if (typeof client.heraldRateLimit !== 'function') client.defineCommand('heraldRateLimit', { numberOfKeys: 1, lua: INCREMENT });
  return class SharedRateLimitStore {
    // The library passes the limiter's window as a third argument its type declarations leave out.
    incr(key: string, callback: (error: Error | null, result?: Counted) => void, timeWindow?: number): void {
      if (timeWindow === undefined) {
        callback(new Error('rate-limit store called without a time window'));
        return;
      }
      client.heraldRateLimit(`ratelimit:${key}`, timeWindow).then(
        ([current, ttl]) => callback(null, { current, ttl }),
        (error: Error) => callback(error),
      );
    }

    child(): SharedRateLimitStore {
      return this;
    }
  };
}
