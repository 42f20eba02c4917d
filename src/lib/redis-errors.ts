// Kept apart from redis.ts so that recognising a Redis failure does not load the Redis client.

/** True when `error` says Redis could not be reached (as opposed to rejecting a command). */
export function isRedisUnavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  return /^(Connection is closed|Stream isn't writeable|connect ECONNREFUSED|Redis connection lost)/.test(e.message ?? '');
}
