import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.ts';
import { BullmqQueue } from '../../src/publishing/bullmq-queue.ts';
import { PROVIDER_IDENTIFIERS } from '../../src/providers/registry.ts';
import { BACKEND, freshDatabaseUrl, REDIS_URL, scaleProcessEnv } from '../helpers/backend.ts';
import { deploymentEnv, seedWorkspace } from '../helpers/deployment.ts';
import { processBudget, type ServerProcess } from '../helpers/process.ts';
import { postStates, schedulePosts, startFastReceiver, startRole, waitFor } from './harness.ts';

// An API process and a worker over PostgreSQL and Redis, with a horizon of 4 seconds (a sweep
// every second): Redis holds the wakes of the next seconds, never those of posts further ahead.
const CHANNELS = 10;
const HORIZON_SECONDS = 4;

let drop: () => Promise<void>;
let databaseUrl: string;
let receiver: Awaited<ReturnType<typeof startFastReceiver>>;
let key: string;
let channelIds: string[];
let redisJobs: BullmqQueue;
let processes: ServerProcess[] = [];

describe.skipIf(BACKEND !== 'postgres')('the horizon, scaled out (real processes)', () => {
  beforeAll(
    async () => {
      receiver = await startFastReceiver();
      const fresh = await freshDatabaseUrl();
      drop = fresh.drop;
      databaseUrl = fresh.url;
      const env = deploymentEnv(fresh.url, fresh.dataDir, {
        SWEEP_INTERVAL_SECONDS: '1',
        PUBLISH_HORIZON_SECONDS: String(HORIZON_SECONDS),
      });
      ({ key, channelIds } = await seedWorkspace(env, receiver.url, CHANNELS));
      processes = await Promise.all([startRole(env, 'api'), startRole(env, 'worker')]);
      // Reads the deployment's jobs in Redis (it takes none).
      redisJobs = new BullmqQueue({
        redisUrl: REDIS_URL,
        prefix: scaleProcessEnv(env).REDIS_PREFIX!,
        clock: systemClock,
        providers: PROVIDER_IDENTIFIERS,
      });
    },
    processBudget(2, 60_000),
  );

  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await redisJobs?.close();
    await receiver?.close();
    await drop?.();
  });

  it('posts days ahead add no delayed job to Redis; posts beyond the horizon when scheduled are published once, not before their time', async () => {
    const [api] = processes;
    const start = Date.now();
    // 200 posts at 20 instants, days ahead: 20 wakes before the horizon, none with it.
    const far: string[] = [];
    for (let i = 0; i < 20; i++)
      far.push(...(await schedulePosts([api!], key, channelIds, CHANNELS, new Date(start + (i + 1) * 86_400_000), `far ${i}`)));
    const due = new Date(Date.now() + (HORIZON_SECONDS + 4) * 1000);
    const soon = await schedulePosts([api!], key, channelIds, CHANNELS, due, 'soon');
    // Beyond the horizon when scheduled: neither is in Redis yet.
    expect(await redisJobs.size()).toBe(0);

    await waitFor('the posts beyond the horizon delivered', async () => soon.every((id) => receiver.byPost().has(id)), 90_000, 100);
    for (const id of soon) {
      const arrivals = receiver.byPost().get(id)!;
      expect(arrivals).toHaveLength(1);
      expect(arrivals[0]!.at).toBeGreaterThanOrEqual(due.getTime());
    }
    // Recorded once the receiver has answered.
    await waitFor(
      'the posts recorded as published',
      async () => [...(await postStates(databaseUrl, soon)).values()].every((p) => p.state === 'PUBLISHED'),
      30_000,
      100,
    );
    const states = await postStates(databaseUrl, far);
    expect(far.every((id) => states.get(id)?.state === 'QUEUE')).toBe(true);
    // The far posts' wakes were never added.
    expect(await redisJobs.size()).toBe(0);
  }, 180_000);
});
