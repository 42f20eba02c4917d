import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND, freshDatabaseUrl } from '../helpers/backend.ts';
import { processBudget, type ServerProcess } from '../helpers/process.ts';
import { deploymentEnv, seedWorkspace } from '../helpers/deployment.ts';
import { postStates, schedulePosts, startFastReceiver, startPrivateRedis, startRole, waitFor } from './harness.ts';

// A Redis of its own: flushing or stopping the shared one would disturb the other test files.
const POSTS = 200;
const SWEEP_SECONDS = 1;

let env: Record<string, string>;
let drop: () => Promise<void>;
let databaseUrl: string;
let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
let receiver: Awaited<ReturnType<typeof startFastReceiver>>;
let key: string;
let channelIds: string[];
let api: ServerProcess;
let worker: ServerProcess;

describe.skipIf(BACKEND !== 'postgres')('losing Redis (real processes, a private redis-server)', () => {
  beforeAll(
    async () => {
      [redis, receiver] = await Promise.all([startPrivateRedis(), startFastReceiver()]);
      const fresh = await freshDatabaseUrl();
      drop = fresh.drop;
      databaseUrl = fresh.url;
      env = deploymentEnv(fresh.url, fresh.dataDir, {
        REDIS_URL: redis.url,
        REDIS_PREFIX: 'herald',
        SWEEP_INTERVAL_SECONDS: String(SWEEP_SECONDS),
      });
      ({ key, channelIds } = await seedWorkspace(env, receiver.url, 100));
      [api, worker] = await Promise.all([startRole(env, 'api'), startRole(env, 'worker')]);
    },
    processBudget(2, 60_000),
  );

  afterAll(async () => {
    for (const p of [api, worker]) await p?.stop('SIGKILL');
    await redis?.stop();
    await receiver?.close();
    await drop?.();
  });

  it('Redis flushed while posts wait: the sweep queues them again from the database and they go out, not early, once', async () => {
    // Far enough ahead that scheduling and the flush finish first on a loaded machine.
    const due = new Date(Date.now() + 15_000);
    due.setMilliseconds(0);
    const ids = await schedulePosts([api], key, channelIds, POSTS, due, 'flush');
    // Posts due at one instant share one wake of their lane.
    expect(Number(await redis.cli('ZCARD', 'herald:herald-publish-webhook:delayed'))).toBe(1);
    // Every job is gone at this instant. (Counting keys afterwards would race the worker's sweep,
    // which may already be queueing them again: that is the repair this test is about.)
    expect(await redis.cli('FLUSHALL')).toBe('OK');

    await waitFor('every post delivered', async () => ids.every((id) => receiver.byPost().has(id)), 120_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const byPost = receiver.byPost();
    expect(ids.filter((id) => byPost.get(id)!.length !== 1)).toEqual([]);
    // Not before their time. (How late they are depends on the machine's load: the benchmark measures it.)
    const lateness = ids.map((id) => byPost.get(id)![0]!.at - due.getTime());
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(-50);
    const states = await postStates(databaseUrl, ids);
    expect([...states.values()].filter((s) => s.state !== 'PUBLISHED')).toEqual([]);
  }, 180_000);

  it('Redis down: /readyz names it and the API answers 503 at once; back up, both recover by themselves and posts flow again', async () => {
    await redis.stop();
    const ready = await fetch(`${api.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      status: 'unavailable',
      checks: { database: 'ok', redis: 'down', storage: 'ok' },
      msg: expect.stringMatching(/redis/),
    });
    expect((await fetch(`${worker.baseUrl}/readyz`)).status).toBe(503);
    // Answered, not left hanging while Redis is away (a hang would outlast the budget and fail).
    const refused = await fetch(`${api.baseUrl}/public/v1/integrations`, {
      headers: { authorization: key },
      signal: AbortSignal.timeout(60_000),
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ msg: expect.stringMatching(/temporarily unavailable/) });
    expect((await fetch(`${api.baseUrl}/healthz`)).status).toBe(200);

    await redis.start();
    await waitFor('the API to be ready again', async () => (await fetch(`${api.baseUrl}/readyz`)).status === 200, 90_000, 200);
    await waitFor('the worker to be ready again', async () => (await fetch(`${worker.baseUrl}/readyz`)).status === 200, 90_000, 200);
    expect((await fetch(`${api.baseUrl}/public/v1/integrations`, { headers: { authorization: key } })).status).toBe(200);

    const due = new Date(Date.now() + 10_000);
    const ids = await schedulePosts([api], key, channelIds, 50, due, 'after');
    await waitFor('the new posts delivered', async () => ids.every((id) => receiver.byPost().has(id)), 90_000, 100);
    expect(ids.filter((id) => receiver.byPost().get(id)!.length !== 1)).toEqual([]);
  }, 360_000);
});
