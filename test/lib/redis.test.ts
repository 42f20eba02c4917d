import { describe, expect, it } from 'vitest';
import { isRedisUnavailable, redisOptionsFromUrl } from '../../src/lib/redis.ts';

describe('Redis connection settings', () => {
  it('reads host, port, credentials, database and TLS from the URL', () => {
    expect(redisOptionsFromUrl('redis://127.0.0.1:6379')).toEqual({ host: '127.0.0.1', port: 6379 });
    expect(redisOptionsFromUrl('redis://cache')).toEqual({ host: 'cache', port: 6379 });
    expect(redisOptionsFromUrl('redis://:p%40ss@cache:6380/3')).toEqual({ host: 'cache', port: 6380, password: 'p@ss', db: 3 });
    expect(redisOptionsFromUrl('rediss://herald:secret@[::1]:6390')).toEqual({
      host: '::1',
      port: 6390,
      username: 'herald',
      password: 'secret',
      tls: {},
    });
    expect(redisOptionsFromUrl('rediss://cache.internal')).toEqual({
      host: 'cache.internal',
      port: 6379,
      tls: { servername: 'cache.internal' },
    });
  });

  it('tells an unreachable Redis from a rejected command', () => {
    expect(
      isRedisUnavailable(
        Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }),
      ),
    ).toBe(true);
    expect(isRedisUnavailable(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisUnavailable(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isRedisUnavailable(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(undefined)).toBe(false);
  });
});
