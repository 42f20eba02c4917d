import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { deploymentEnv, seedWorkspace } from '../helpers/deployment.ts';
import { processBudget, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const POSTS = 300;

let env: Record<string, string>;
let drop: () => Promise<void>;
let key: string;
let channelIds: string[];
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.slow(15);
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = deploymentEnv(fresh.url, fresh.dataDir, {
    PUBLISH_CONCURRENCY: '8',
    PUBLISH_LEASE_SECONDS: '10',
    SWEEP_INTERVAL_SECONDS: '2',
    LOG_LEVEL: 'warn',
  });
  // One channel per post.
  ({ key, channelIds } = await seedWorkspace(env, receiver.url, POSTS, 'Crash'));
}, 120_000);

afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL');
  await drop?.();
});

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
  servers.push(server);
  return server;
}

async function listPosts(server: ServerProcess, from: string, to: string) {
  const res = await fetch(`${server.baseUrl}/public/v1/posts?startDate=${from}&endDate=${to}`, { headers: { authorization: key } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { posts: Array<{ id: string; state: string; errorKind: string | null }> }).posts;
}

describe('crash while publishing (real process, SIGKILL)', () => {
  it(
    'after a restart every post is delivered exactly once or marked ERROR as unconfirmed; none lost, none twice',
    async () => {
      const first = await start();
      // Far enough ahead that the three scheduling requests finish first on a loaded machine.
      const due = new Date(Date.now() + 10_000);
      due.setMilliseconds(0);
      for (let i = 0; i < POSTS; i += 100) {
        const res = await fetch(`${first.baseUrl}/public/v1/posts`, {
          method: 'POST',
          headers: { authorization: key, 'content-type': 'application/json' },
          body: JSON.stringify({
            type: 'schedule',
            date: due.toISOString(),
            posts: channelIds.slice(i, i + 100).map((id, j) => ({ integration: { id }, value: [{ content: `<p>post ${i + j}</p>` }] })),
          }),
        });
        expect(res.status, await res.clone().text()).toBe(200);
      }

      // Kill the process once publishing is well under way.
      const killAt = POSTS / 3;
      const deadline = Date.now() + 120_000;
      while (receiver.deliveries.length < killAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(receiver.deliveries.length).toBeGreaterThanOrEqual(killAt);
      await first.stop('SIGKILL');
      const atKill = receiver.deliveries.length;
      expect(atKill).toBeLessThan(POSTS);

      const second = await start();
      const from = new Date(due.getTime() - 60_000).toISOString();
      const to = new Date(due.getTime() + 60_000).toISOString();
      let posts = await listPosts(second, from, to);
      const settleBy = Date.now() + 180_000;
      while (posts.some((p) => p.state === 'QUEUE' || p.state === 'PUBLISHING') && Date.now() < settleBy) {
        await new Promise((r) => setTimeout(r, 250));
        posts = await listPosts(second, from, to);
      }

      expect(posts).toHaveLength(POSTS);
      const byId = new Map<string, number>();
      for (const d of receiver.deliveries) byId.set(d.id, (byId.get(d.id) ?? 0) + 1);
      const twice = [...byId].filter(([, n]) => n > 1);
      expect(twice).toEqual([]);
      const states = new Map<string, number>();
      for (const post of posts) {
        states.set(`${post.state}:${post.errorKind ?? ''}`, (states.get(`${post.state}:${post.errorKind ?? ''}`) ?? 0) + 1);
        const delivered = byId.get(`msg_${post.id}_0`) ?? 0;
        if (post.state === 'PUBLISHED') expect(delivered, post.id).toBe(1);
        else {
          expect(post, post.id).toMatchObject({ state: 'ERROR', errorKind: 'unconfirmed' });
          expect(delivered).toBeLessThanOrEqual(1);
        }
      }
      // Most posts are published; only those in flight at the kill can be unconfirmed.
      expect(states.get('PUBLISHED:') ?? 0).toBeGreaterThanOrEqual(POSTS - 8);
      console.info(`crash test: ${atKill} delivered before the kill; after restart ${JSON.stringify(Object.fromEntries(states))}`);
    },
    processBudget(2, 120_000 + 180_000 + 30_000),
  );
});

describe('graceful stop (real process, SIGTERM)', () => {
  it(
    'lets the publish in flight finish and exits cleanly',
    async () => {
      // The only process: with the scale-out queue a job may go to any running process of the deployment.
      for (const earlier of servers) await earlier.stop('SIGTERM');
      receiver.slow(1500);
      const server = await start();
      const res = await fetch(`${server.baseUrl}/public/v1/posts`, {
        method: 'POST',
        headers: { authorization: key, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'now',
          date: new Date().toISOString(),
          posts: [{ integration: { id: channelIds[0] }, value: [{ content: '<p>in flight</p>' }] }],
        }),
      });
      expect(res.status).toBe(200);
      const postId = ((await res.json()) as Array<{ postId: string }>)[0]!.postId;
      const deadline = Date.now() + 60_000;
      while (!receiver.deliveries.some((d) => d.id === `msg_${postId}_0`) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(await server.stop('SIGTERM')).toBe(0);
      receiver.slow(15);
      const runtime = await openRuntime(loadConfig(env), { migrate: false });
      try {
        const row = await runtime.db.selectFrom('posts').select(['state']).where('id', '=', postId).executeTakeFirstOrThrow();
        expect(row.state).toBe('PUBLISHED');
      } finally {
        await runtime.close();
      }
    },
    processBudget(1, 90_000),
  );
});
