import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND, dropRedisPrefix, scaleProcessEnv } from '../helpers/backend.ts';
import { processBudget, type ServerProcess } from '../helpers/process.ts';
import { deploymentEnv, seedWorkspace } from '../helpers/deployment.ts';
import { postStates, schedulePosts, startFastReceiver, startPrivatePostgres, startRole, waitFor } from './harness.ts';

// A PostgreSQL cluster of its own: restarting the machine's server would break the other test files.
let pg: Awaited<ReturnType<typeof startPrivatePostgres>>;
let receiver: Awaited<ReturnType<typeof startFastReceiver>>;
let dataDir: string;
let key: string;
let channelIds: string[];
let api: ServerProcess;
let worker: ServerProcess;

describe.skipIf(BACKEND !== 'postgres')('PostgreSQL restarted mid-run (real processes, a private cluster)', () => {
  beforeAll(
    async () => {
      [pg, receiver] = await Promise.all([startPrivatePostgres(), startFastReceiver()]);
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pgr-'));
      const env = deploymentEnv(pg.url, dataDir, { SWEEP_INTERVAL_SECONDS: '1' });
      ({ key, channelIds } = await seedWorkspace(env, receiver.url, 50));
      [api, worker] = await Promise.all([startRole(env, 'api'), startRole(env, 'worker')]);
    },
    processBudget(2, 90_000),
  );

  afterAll(async () => {
    for (const p of [api, worker]) await p?.stop('SIGKILL');
    await receiver?.close();
    if (pg) await dropRedisPrefix(scaleProcessEnv({ DATABASE_URL: pg.url }).REDIS_PREFIX!);
    await pg?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 while the database is down, recovers by itself, and publishes what came due meanwhile exactly once', async () => {
    // Far enough ahead that scheduling and stopping the database finish first on a loaded machine.
    const due = new Date(Date.now() + 10_000);
    const ids = await schedulePosts([api], key, channelIds, 100, due, 'outage');
    await pg.stop();

    const down = await fetch(`${api.baseUrl}/public/v1/integrations`, { headers: { authorization: key } });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(await down.json()).toEqual({ msg: 'The service is temporarily unavailable; retry shortly.', code: 'unavailable' });
    for (const p of [api, worker]) {
      expect((await fetch(`${p.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${p.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        checks: { database: 'down', redis: 'ok', storage: 'ok' },
        msg: 'Not ready: database unreachable.',
      });
    }
    // The posts come due while the database is away.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due.getTime() + 1000 - Date.now())));
    expect(receiver.arrivals).toHaveLength(0);

    await pg.start();
    await waitFor(
      'the API to answer again',
      async () => (await fetch(`${api.baseUrl}/public/v1/integrations`, { headers: { authorization: key } })).status === 200,
      90_000,
      200,
    );
    for (const p of [api, worker]) expect((await fetch(`${p.baseUrl}/readyz`)).status).toBe(200);
    await waitFor('every post delivered', async () => ids.every((id) => receiver.byPost().has(id)), 120_000, 200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(ids.filter((id) => receiver.byPost().get(id)!.length !== 1)).toEqual([]);
    const states = await postStates(pg.url, ids);
    expect([...states.values()].filter((s) => s.state !== 'PUBLISHED')).toEqual([]);
  }, 300_000);
});
