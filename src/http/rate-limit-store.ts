import type { Redis } from 'ioredis';
import type { MaybePromise } from '../lib/maybe-promise.ts';

/** A key's count in its current window, and the milliseconds left in that window. */
export type Counted = { current: number; ttl: number };

/**
 * Counts requests per key in fixed windows: the first hit starts a window, later hits count
 * within it. `hit` answers synchronously when the counters are in this process, so a request
 * that is counted in memory waits for nothing.
 */
export interface RequestCounter {
  hit(key: string, windowMs: number): MaybePromise<Counted>;
}

/** The counters of a single process: a bounded map, the least recently counted key dropped first. */
export class LocalRequestCounter implements RequestCounter {
  readonly #windows = new Map<string, { current: number; startedAt: number }>();

  constructor(
    private readonly max = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  hit(key: string, windowMs: number): Counted {
    const now = this.now();
    let entry = this.#windows.get(key);
    if (entry) {
      this.#windows.delete(key);
      if (entry.startedAt + windowMs <= now) {
        entry.current = 1;
        entry.startedAt = now;
      } else {
        entry.current += 1;
      }
    } else {
      entry = { current: 1, startedAt: now };
      if (this.#windows.size >= this.max) this.#windows.delete(this.#windows.keys().next().value!);
    }
    this.#windows.set(key, entry);
    return { current: entry.current, ttl: windowMs - (now - entry.startedAt) };
  }
}

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

type RedisWithCounter = Redis & { heraldRateLimit(key: string, windowMs: number): Promise<[number, number]> };

/**
 * The shared counters of a scale-out deployment, in Redis: keys are `ratelimit:<route>|<who>`
 * under the connection's own prefix (REDIS_PREFIX). A Redis error fails the request (503),
 * rather than letting it through uncounted.
 */
export class RedisRequestCounter implements RequestCounter {
  readonly #client: RedisWithCounter;

  constructor(redis: Redis) {
    this.#client = redis as RedisWithCounter;
    if (typeof this.#client.heraldRateLimit !== 'function')
      this.#client.defineCommand('heraldRateLimit', { numberOfKeys: 1, lua: INCREMENT });
  }

  async hit(key: string, windowMs: number): Promise<Counted> {
    const [current, ttl] = await this.#client.heraldRateLimit(`ratelimit:${key}`, windowMs);
    return { current, ttl };
  }
}

/**
 * Quotas that a service counts (not a route), in the process's counters or the shared store
 * alike. `take`: fixed windows aligned on the service's clock, the window's start being part of
 * the key, so an injected clock moves them whichever store counts. `takeFromFirstUse`: a window
 * from a key's first use, as the routes' quotas count.
 */
export class ClockedQuota {
  constructor(
    private readonly counter: RequestCounter,
    private readonly clock: { now(): Date },
  ) {}

  /** Counts one use against `key`; returns the milliseconds left in the window when this use is over `max`, else null. */
  async take(key: string, max: number, windowMs: number): Promise<number | null> {
    const now = this.clock.now().getTime();
    const window = Math.floor(now / windowMs);
    const { current } = await this.counter.hit(`${key}|${window}`, windowMs);
    return current > max ? (window + 1) * windowMs - now : null;
  }

  /**
   * Counts one use against `key` in a window that starts at the key's first use and runs on the
   * store's own time (as the routes' quotas do); returns the milliseconds left in that window when
   * this use is over `max`, else null.
   */
  async takeFromFirstUse(key: string, max: number, windowMs: number): Promise<number | null> {
    const { current, ttl } = await this.counter.hit(key, windowMs);
    return current > max ? ttl : null;
  }
}
