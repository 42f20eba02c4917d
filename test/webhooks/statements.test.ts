// What webhooks cost the database: a publish in a workspace with an endpoint writes its event with
// one more statement, and the delivery worker turns events into deliveries and sends them in
// batches, a few statements per event, whichever backend the suite runs against.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { PER_ENDPOINT } from '../../src/webhooks/webhook-delivery.ts';
import { createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint } from './helpers.ts';

type Statement = { sql: string; parameters: readonly unknown[] };
const clock = new ManualClock('2026-10-01T08:00:00.000Z');
const POSTS = 20;
let recording: Statement[] | null = null;
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  hooks = await startWebhookReceiver();
  t = await createTestApp({
    clock,
    engine: true,
    engineConcurrency: 4,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true' },
    onQuery: (query) => recording?.push(query),
  });
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await hooks?.close();
});

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction|savepoint|release)\b/i;
const work = (statements: Statement[]) => statements.filter((s) => !TRANSACTION_CONTROL.test(s.sql));

/** `POSTS` posts of one workspace (a channel each) due at `at`: the statements of their publishing, then of delivering their events. */
async function burst(at: string, withEndpoint: boolean) {
  const tenant = await webhookTenant(t, receiver.url);
  if (withEndpoint) await createEndpoint(t, tenant, hooks.url, ['post.published']);
  const channels = [tenant.channelId];
  for (let i = 1; i < POSTS; i++)
    channels.push(
      (
        await t.services.channels.create(tenant.workspaceId, {
          provider: 'webhook',
          name: `Hook ${i}`,
          config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
        })
      ).id,
    );
  clock.set(new Date(Date.parse(at) - 3600_000).toISOString());
  for (const channelId of channels) await createOk(t, tenant, postBody(channelId, { date: at }, [{ content: '<p>Counted</p>' }]));
  clock.set(new Date(Date.parse(at) - 60_000).toISOString());
  await t.settle();
  await t.services.webhookDelivery.drain();
  recording = [];
  clock.set(at);
  await t.settle();
  const publishing = recording;
  recording = [];
  await t.services.webhookDelivery.drain();
  const delivering = recording;
  recording = null;
  return { publishing, delivering };
}

describe('statements per published post with webhooks', () => {
  it('a publish writes its event with one statement more; delivering takes a few per event, not a few transactions', async () => {
    await burst('2026-10-01T10:00:00.000Z', false);
    const withHooks = await burst('2026-10-01T12:00:00.000Z', true);
    expect(hooks.deliveries).toHaveLength(POSTS);
    // Publishing: at most one insert of the events per post (one per batch where a batch is recorded by one statement), and no
    // read of the endpoints (the claim already read that the workspace listens).
    const inserts = work(withHooks.publishing).filter((s) => /^insert into "webhook_events"/.test(s.sql));
    expect(inserts.length).toBeGreaterThan(0);
    expect(inserts.length).toBeLessThanOrEqual(POSTS);
    expect(work(withHooks.publishing).some((s) => /^select distinct "workspace_id" from "webhook_endpoints"/.test(s.sql))).toBe(false);
    // Delivering: the events' posts read together, every endpoint's deliveries claimed and settled PER_ENDPOINT at a time.
    expect(withHooks.delivering.filter((s) => /^select \* from "posts"/.test(s.sql)).length).toBeLessThanOrEqual(2);
    const claims = withHooks.delivering.filter((s) => /^update "webhook_deliveries" set "state" = (\?|\$\d+), "claimed_at"/.test(s.sql));
    expect(claims).toHaveLength(POSTS / PER_ENDPOINT);
    expect(withHooks.delivering.filter((s) => /^insert into "webhook_attempts"/.test(s.sql))).toHaveLength(POSTS / PER_ENDPOINT);
    const transactions = withHooks.delivering.filter((s) => /^\s*(begin|start transaction)\b/i.test(s.sql));
    expect(transactions.length).toBeLessThanOrEqual(2 + (2 * POSTS) / PER_ENDPOINT);
    // PostgreSQL locks the endpoint's row before each claim (its cap holds across processes); SQLite's one writer needs no lock.
    const locks = withHooks.delivering.filter((s) =>
      /^select "id" from "webhook_endpoints" where "id" = (\?|\$\d+) for update/.test(s.sql),
    );
    expect(locks.length).toBeLessThanOrEqual(claims.length + 1);
    expect((withHooks.delivering.length - locks.length) / POSTS).toBeLessThan(5);
  }, 120_000);
});
