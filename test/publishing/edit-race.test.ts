import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { deploymentEnv, seedWorkspace } from '../helpers/deployment.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// Many posts due at one instant while their compositions are edited around that instant, on a
// real server process. Whatever the interleaving, each post goes out once, with the content the
// API shows for it. Loops are bounded by counts; waits have budgets far above what a loaded
// machine needs; nothing is asserted about time.
const GROUPS = 30;
const CHANNELS_PER_GROUP = 2;
const MAX_EDITS = 200;

let env: Record<string, string>;
let drop: () => Promise<void>;
let key: string;
let channelIds: string[];
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let server: ServerProcess | undefined;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.slow(5);
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = deploymentEnv(fresh.url, fresh.dataDir, {
    PUBLISH_CONCURRENCY: '8',
    SWEEP_INTERVAL_SECONDS: '1',
    LOG_LEVEL: 'warn',
    // Thirty editors send edits back to back for as long as the worker takes to claim, which on a
    // loaded machine can pass the default quota: this test is about the engine, not the quota.
    RATE_LIMIT_MAX: '1000000',
  });
  ({ key, channelIds } = await seedWorkspace(env, receiver.url, GROUPS * CHANNELS_PER_GROUP, 'Edit race'));
}, 120_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await drop?.();
});

const text = (group: number, version: number, channel: number) => `g${group} v${version} c${channel}`;

function body(group: number, version: number, date: string, groupId?: string) {
  return {
    type: 'schedule',
    date,
    ...(groupId && { group: groupId }),
    posts: channelIds
      .slice(group * CHANNELS_PER_GROUP, (group + 1) * CHANNELS_PER_GROUP)
      .map((id, c) => ({ integration: { id }, value: [{ content: `<p>${text(group, version, c)}</p>` }] })),
  };
}

describe('edits racing the claim (real process)', () => {
  it('posts due at one instant, edited around it: each goes out once, with the content the API shows', async () => {
    server = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server!.baseUrl}/public/v1${path}`, {
        ...init,
        headers: { authorization: key, 'content-type': 'application/json', ...init.headers },
      });

    const due = new Date(Date.now() + 1500);
    due.setMilliseconds(0);
    const date = due.toISOString();
    const groupIds: string[] = [];
    const postGroup = new Map<string, number>();
    for (let g = 0; g < GROUPS; g++) {
      const res = await api('/posts', { method: 'POST', body: JSON.stringify(body(g, 0, date)) });
      expect(res.status, await res.clone().text()).toBe(200);
      const created = (await res.json()) as Array<{ postId: string }>;
      const first = (await (await api(`/posts/${created[0]!.postId}`)).json()) as { group: string };
      groupIds.push(first.group);
      for (const { postId } of created) postGroup.set(postId, g);
    }

    // One editor per composition, each sending edits back to back from just before the instant
    // until they are refused (the post is being published, or published) or MAX_EDITS is reached.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due.getTime() - 300 - Date.now())));
    const refusals = new Map<string, number>();
    await Promise.all(
      groupIds.map(async (groupId, g) => {
        for (let version = 1; version <= MAX_EDITS; version++) {
          const res = await api('/posts', { method: 'POST', body: JSON.stringify(body(g, version, date, groupId)) });
          if (res.status === 200) {
            await res.arrayBuffer();
            continue;
          }
          const answer = (await res.json()) as { code: string };
          // A 500 carries the server's own account of it.
          const logged =
            res.status >= 500
              ? `\n${server!
                  .output()
                  .split('\n')
                  .filter((line) => /"level":50/.test(line))
                  .join('\n')}`
              : '';
          expect([409, 400], JSON.stringify(answer) + logged).toContain(res.status);
          refusals.set(answer.code, (refusals.get(answer.code) ?? 0) + 1);
          return;
        }
      }),
    );

    const from = new Date(due.getTime() - 60_000).toISOString();
    const to = new Date(due.getTime() + 60_000).toISOString();
    type Listed = { id: string; state: string; content: string };
    const list = async () => ((await (await api(`/posts?startDate=${from}&endDate=${to}`)).json()) as { posts: Listed[] }).posts;
    let posts = await list();
    for (let i = 0; i < 600 && posts.some((p) => p.state === 'QUEUE' || p.state === 'PUBLISHING'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      posts = await list();
    }

    expect(posts).toHaveLength(GROUPS * CHANNELS_PER_GROUP);
    for (const post of posts) {
      const deliveries = receiver.deliveries.filter((d) => d.id === `msg_${post.id}_0`);
      expect(post.state, post.id).toBe('PUBLISHED');
      expect(deliveries, post.id).toHaveLength(1);
      expect(`<p>${String(deliveries[0]!.body.data.text)}</p>`, post.id).toBe(post.content);
    }
    console.info(`edit race: ${receiver.deliveries.length} deliveries; edits refused with ${JSON.stringify(Object.fromEntries(refusals))}`);
  }, 180_000);
});
