// A real `herald serve` killed with SIGKILL while it delivers webhook events for many posts:
// after a restart every post.published event arrives at least once, none is lost, none exists for
// a post that did not publish, and an event arrives twice only when the process died between
// sending it and recording the answer (at most the attempts in flight to the endpoint at the kill).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_ENDPOINT } from '../../src/webhooks/webhook-delivery.ts';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { deploymentEnv, seedWorkspace } from '../helpers/deployment.ts';
import { processBudget, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { verified } from './helpers.ts';

const POSTS = 200;
const LEASE_SECONDS = 30;

let env: Record<string, string>;
let drop: () => Promise<void>;
let key: string;
let channelIds: string[];
let channelReceiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  channelReceiver = await startWebhookReceiver();
  hooks = await startWebhookReceiver();
  // Slow enough that most events are still waiting at the kill, with attempts in flight.
  hooks.slow(100);
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = deploymentEnv(fresh.url, fresh.dataDir, {
    PUBLISH_CONCURRENCY: '8',
    PUBLISH_LEASE_SECONDS: '10',
    SWEEP_INTERVAL_SECONDS: '2',
    WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
    LOG_LEVEL: 'warn',
  });
  ({ key, channelIds } = await seedWorkspace(env, channelReceiver.url, POSTS, 'Webhook crash'));
}, 120_000);

afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL');
  await drop?.();
});

async function start(): Promise<ServerProcess> {
  // The process is seen to listen by its info log.
  const server = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
  servers.push(server);
  return server;
}

async function api(server: ServerProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.baseUrl}/public/v1${path}`, {
    method,
    headers: { authorization: key, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status, text).toBeLessThan(300);
  return JSON.parse(text) as unknown;
}

/** Waits (polling every 250 ms) until `done` holds, or fails with `what` after `ms`. */
async function until(what: string, ms: number, done: () => boolean | Promise<boolean>, status = () => ''): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting until ${what} ${status()}\n${servers.at(-1)?.output().slice(-4000) ?? ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('crash while delivering webhooks (real process, SIGKILL)', () => {
  it(
    'after a restart every post.published arrives at least once; none for an unpublished post; duplicates only of attempts in flight at the kill',
    async () => {
      const first = await start();
      const endpoint = (await api(first, 'POST', '/webhooks', { url: hooks.url, eventTypes: ['post.published'] })) as {
        id: string;
        secret: string;
      };
      // Each delivery is verified with the Standard Webhooks library soon after it arrives: the
      // library refuses a timestamp more than five minutes old, and this test may run longer.
      const envelopes: Array<{ id: string; envelope: ReturnType<typeof verified> }> = [];
      const verify = () => {
        for (const d of hooks.deliveries.slice(envelopes.length)) envelopes.push({ id: d.id, envelope: verified(d, endpoint.secret) });
      };
      const verifier = setInterval(verify, 250);
      // Far enough ahead that the scheduling requests finish first on a loaded machine.
      const due = new Date(Date.now() + 10_000);
      due.setMilliseconds(0);
      for (let i = 0; i < POSTS; i += 100) {
        await api(first, 'POST', '/posts', {
          type: 'schedule',
          date: due.toISOString(),
          posts: channelIds.slice(i, i + 100).map((id, j) => ({ integration: { id }, value: [{ content: `<p>post ${i + j}</p>` }] })),
        });
      }

      // Kill once deliveries are well under way and most events still wait.
      const killAt = POSTS / 4;
      await until(`${killAt} deliveries arrived`, 180_000, () => hooks.deliveries.length >= killAt);
      await first.stop('SIGKILL');
      const beforeKill = new Set(hooks.deliveries.map((d) => d.id));
      expect(beforeKill.size).toBeLessThan(POSTS);

      const second = await start();
      const from = new Date(due.getTime() - 60_000).toISOString();
      const to = new Date(due.getTime() + 60_000).toISOString();
      type Listed = { id: string; state: string };
      let posts: Listed[] = [];
      const list = async () =>
        (posts = ((await api(second, 'GET', `/posts?startDate=${from}&endDate=${to}`)) as { posts: Listed[] }).posts);
      await until('every post settled', 240_000, async () => (await list()).every((p) => p.state !== 'QUEUE' && p.state !== 'PUBLISHING'));
      expect(posts).toHaveLength(POSTS);
      const published = new Set(posts.filter((p) => p.state === 'PUBLISHED').map((p) => p.id));
      // Only the publishes in flight at the kill may end unconfirmed (ERROR); they have no event.
      expect(published.size).toBeGreaterThanOrEqual(POSTS - 8);

      // The posts the verified deliveries name.
      const delivered = () => new Set(envelopes.map((e) => (e.envelope.data.post as { id: string }).id));
      // Deliveries left claimed by the dead process wait for their lease to run out (WEBHOOK_LEASE_SECONDS).
      await until(
        'every published post had its event delivered',
        (LEASE_SECONDS + 240) * 1000,
        () => [...published].every((id) => delivered().has(id)),
        () => `(${delivered().size} of ${published.size} posts' events delivered, ${hooks.deliveries.length} deliveries)`,
      );
      clearInterval(verifier);
      verify();
      expect(envelopes).toHaveLength(hooks.deliveries.length);
      expect(envelopes.every((e) => e.envelope.type === 'post.published')).toBe(true);
      // None for a post that did not publish.
      const named = envelopes.map((e) => (e.envelope.data.post as { id: string; state: string }).id);
      expect(named.filter((id) => !published.has(id))).toEqual([]);
      // One event per post, its webhook-id the same on every sending of it.
      const idsByPost = new Map<string, Set<string>>();
      for (const [i, e] of envelopes.entries()) idsByPost.set(named[i]!, (idsByPost.get(named[i]!) ?? new Set()).add(e.id));
      expect([...idsByPost.values()].filter((ids) => ids.size !== 1)).toEqual([]);
      // Sent twice only when it was in flight at the kill: received before it, and at most the endpoint's cap of them.
      const times = new Map<string, number>();
      for (const d of hooks.deliveries) times.set(d.id, (times.get(d.id) ?? 0) + 1);
      const twice = [...times].filter(([, n]) => n > 1).map(([id]) => id);
      expect(twice.every((id) => beforeKill.has(id) && times.get(id) === 2)).toBe(true);
      expect(twice.length).toBeLessThanOrEqual(PER_ENDPOINT);
      console.info(
        `webhook crash test: ${beforeKill.size} events delivered before the kill, ${published.size} posts published, ${twice.length} delivered twice`,
      );
    },
    processBudget(2, 180_000 + 240_000 + (LEASE_SECONDS + 240) * 1000 + 60_000),
  );
});
