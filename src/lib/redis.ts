import net from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connection options from a `redis://` or `rediss://` URL
 * (`redis://[user][:password]@host[:port][/db]`), for clients that take options rather than a URL.
 */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return {
    host,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username && { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password && { password: decodeURIComponent(parsed.password) }),
    ...(db && { db: Number(db) }),
    // SNI carries names only, never addresses.
    ...(parsed.protocol === 'rediss:' && { tls: net.isIP(host) ? {} : { servername: host } }),
  };
}

/**
 * A connection for request-time commands (rate-limit counters, enqueueing, health checks). It
 * connects on first use, and while Redis is unreachable a command fails after one reconnection
 * attempt instead of waiting: a request should get a quick 503, not hang.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  const redis = new Redis({
    ...redisOptionsFromUrl(url),
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 1,
    ...options,
  });
  // Errors reach the callers of failed commands; the connection itself reconnects on its own.
  redis.on('error', () => {});
  return redis;
}

export { isRedisUnavailable } from './redis-errors.ts';
