import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND, freshDatabaseUrl } from '../helpers/backend.ts';
import { processBudget, type ServerProcess } from '../helpers/process.ts';
import { deploymentEnv, seedWorkspace } from '../helpers/deployment.ts';
import { percentile, postStates, schedulePosts, startFastReceiver, startRole, waitFor } from './harness.ts';

// Two API processes and two workers over one PostgreSQL database and one Redis, on loopback.
const POSTS = 2000;
const CHANNELS = 100;

let env: Record<string, string>;
let drop: () => Promise<void>;
let databaseUrl: string;
let receiver: Awaited<ReturnType<typeof startFastReceiver>>;
let key: string;
let channelIds: string[];
let apis: ServerProcess[] = [];
let workers: ServerProcess[] = [];

describe.skipIf(BACKEND !== 'postgres')('scale-out topology: two API processes, two workers (real processes)', () => {
  beforeAll(
    async () => {
      receiver = await startFastReceiver();
      const fresh = await freshDatabaseUrl();
      drop = fresh.drop;
      databaseUrl = fresh.url;
      env = deploymentEnv(fresh.url, fresh.dataDir, {
        PUBLISH_CONCURRENCY: '16',
        PUBLISH_LEASE_SECONDS: '10',
        SWEEP_INTERVAL_SECONDS: '1',
        QUEUE_LOCK_SECONDS: '4',
        RATE_LIMIT_ROUTES: JSON.stringify({ 'GET /public/v1/notifications': 7 }),
      });
      ({ key, channelIds } = await seedWorkspace(env, receiver.url, CHANNELS));
      [apis, workers] = await Promise.all([
        Promise.all([startRole(env, 'api'), startRole(env, 'api')]),
        Promise.all([startRole(env, 'worker'), startRole(env, 'worker')]),
      ]);
    },
    processBudget(4, 60_000),
  );

  afterAll(async () => {
    for (const p of [...apis, ...workers]) await p.stop('SIGKILL');
    await receiver?.close();
    await drop?.();
  });

  it('every role answers /healthz, and /readyz once the database, Redis and storage answer; a worker serves nothing else', async () => {
    for (const p of [...apis, ...workers]) {
      expect((await fetch(`${p.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${p.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok', storage: 'ok' } });
    }
    expect((await fetch(`${workers[0]!.baseUrl}/public/v1/status`)).status).toBe(404);
    expect((await fetch(`${apis[0]!.baseUrl}/public/v1/status`)).status).toBe(200);
  });

  it('a quota is counted once across both API processes', async () => {
    const seen: Array<{ status: number; remaining: string | null }> = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${apis[i % 2]!.baseUrl}/public/v1/notifications`, { headers: { authorization: key } });
      seen.push({ status: res.status, remaining: res.headers.get('ratelimit-remaining') });
    }
    expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
    expect(seen.slice(0, 7).map((s) => s.remaining)).toEqual(['6', '5', '4', '3', '2', '1', '0']);
  });

  it('2,000 posts scheduled for one instant through both APIs are each published exactly once', async () => {
    // Far enough ahead that scheduling finishes first on a loaded machine (a date in the past is refused).
    const due = new Date(Date.now() + 20_000);
    due.setMilliseconds(0);
    const ids = await schedulePosts(apis, key, channelIds, POSTS, due, 'burst');
    expect(new Set(ids).size).toBe(POSTS);

    // On a 2-core machine loaded by other runs, the last of 2,000 posts has been seen arriving three minutes late.
    await waitFor('every post delivered', async () => ids.every((id) => receiver.byPost().has(id)), 300_000, 200);
    // Give duplicates, if any, a moment to show up.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const byPost = receiver.byPost();
    const twice = ids.filter((id) => (byPost.get(id)?.length ?? 0) > 1);
    expect(twice).toEqual([]);
    const states = await postStates(databaseUrl, ids);
    expect([...states.values()].filter((s) => s.state !== 'PUBLISHED')).toEqual([]);

    const lateness = ids.map((id) => byPost.get(id)![0]!.at - due.getTime());
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(-50);
    // Both workers took part.
    // Log lines are written in batches (at least every half second): wait for each worker's.
    for (const worker of workers)
      await waitFor('a worker logged a publish', async () => /"msg":"post published"/.test(worker.output()), 60_000, 100);
    console.info(
      `burst of ${POSTS} over 2 APIs / 2 workers: lateness p50 ${percentile(lateness, 50)} ms, p99 ${percentile(lateness, 99)} ms, max ${Math.max(...lateness)} ms`,
    );
  }, 420_000);

  it('a worker killed with SIGKILL mid-run: the rest still go out, none twice, none lost (unknown outcomes end as ERROR unconfirmed)', async () => {
    receiver.slow(60);
    const before = receiver.arrivals.length;
    const due = new Date(Date.now() + 20_000);
    due.setMilliseconds(0);
    const ids = await schedulePosts(apis, key, channelIds, POSTS, due, 'kill');
    await waitFor('the run to be well under way', async () => receiver.arrivals.length - before >= 400, 120_000, 20);
    // Kill the victim while it certainly has deliveries in flight, whatever the machine's speed: with
    // the answers held, more deliveries waiting than one worker may send at once (16) means both
    // workers have some waiting.
    receiver.hold();
    await waitFor('both workers to have deliveries awaiting their answer', async () => receiver.waiting() > 16, 120_000, 20);
    const victim = workers[0]!;
    expect(await victim.stop('SIGKILL')).toBe(null);
    receiver.release();

    // Settled: published, or failed as unconfirmed once the dead worker's lease ran out.
    const states = await waitFor(
      'every post settled',
      async () => {
        const s = await postStates(databaseUrl, ids);
        return [...s.values()].every((p) => p.state === 'PUBLISHED' || p.state === 'ERROR') ? s : undefined;
      },
      300_000,
      500,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const byPost = receiver.byPost();
    const twice = ids.filter((id) => (byPost.get(id)?.length ?? 0) > 1);
    expect(twice).toEqual([]);

    const published = ids.filter((id) => states.get(id)!.state === 'PUBLISHED');
    const failed = ids.filter((id) => states.get(id)!.state === 'ERROR');
    expect(published.length + failed.length).toBe(POSTS);
    // Every published post reached the receiver exactly once.
    expect(published.filter((id) => byPost.get(id)?.length !== 1)).toEqual([]);
    // Only what the dead worker was sending is in doubt, and it says so: some, at most its concurrency.
    expect(failed.map((id) => states.get(id)!.errorKind)).toEqual(failed.map(() => 'unconfirmed'));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThanOrEqual(16);
    // A delivery the victim never saw answered cannot have been recorded as published.
    const cutOff = ids.filter((id) => byPost.get(id)?.some((a) => !a.completed));
    expect(cutOff.filter((id) => !failed.includes(id))).toEqual([]);
    console.info(`kill run: ${published.length} published, ${failed.length} unconfirmed (${cutOff.length} cut off mid-request)`);
  }, 480_000);

  it('SIGTERM stops a worker after the publishes in flight finish, and an API process cleanly', async () => {
    receiver.slow(1500);
    const res = await fetch(`${apis[0]!.baseUrl}/public/v1/posts`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'now',
        date: new Date().toISOString(),
        posts: channelIds.slice(0, 5).map((id) => ({ integration: { id }, value: [{ content: '<p>in flight</p>' }] })),
      }),
    });
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as Array<{ postId: string }>).map((p) => p.postId);
    await waitFor('the deliveries to be in flight', async () => ids.every((id) => receiver.byPost().has(id)), 60_000, 10);
    expect(
      ids.some((id) =>
        receiver
          .byPost()
          .get(id)!
          .some((a) => a.completed),
      ),
    ).toBe(false);
    expect(await workers[1]!.stop('SIGTERM')).toBe(0);
    const states = await postStates(databaseUrl, ids);
    expect([...states.values()].map((s) => s.state)).toEqual(ids.map(() => 'PUBLISHED'));
    expect(await apis[1]!.stop('SIGTERM')).toBe(0);
  }, 90_000);
});
