import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { BullmqQueue } from '../../src/publishing/bullmq-queue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, getPost, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// What one publish costs the database: the statements the engine runs from the moment a post is
// due until it is recorded as published, on whichever backend the suite runs against.
type Statement = { sql: string; parameters: readonly unknown[] };
const clock = new ManualClock('2026-10-01T08:00:00.000Z');
let recording: Statement[] | null = null;
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Room for more than one post at once: a lane's claim (scale-out) that comes back short is its last.
  t = await createTestApp({
    clock,
    engine: true,
    engineConcurrency: 4,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true' },
    onQuery: (query) => recording?.push(query),
  });
});

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction|savepoint|release)\b/i;

async function publishRecorded(content: Array<{ content: string; delay?: number }>, at: string) {
  const tenant = await webhookTenant(t, receiver.url);
  clock.set(new Date(Date.parse(at) - 3600_000).toISOString());
  const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: at }, content));
  // A minute before: the post has come within the engine's horizon (brought in by one read for
  // every post coming due, not by the publish).
  clock.set(new Date(Date.parse(at) - 60_000).toISOString());
  await t.settle();
  recording = [];
  clock.set(at);
  await t.settle();
  const statements = recording;
  recording = null;
  return { tenant, postId: created!.postId, statements };
}

describe('statements per publish', () => {
  it('a post due publishes with at most 4 SQL statements (claim, then record), nothing else', async () => {
    const { tenant, postId, statements } = await publishRecorded([{ content: '<p>Counted</p>' }], '2026-10-01T10:00:00.000Z');
    expect((await getPost(t, tenant, postId)).state).toBe('PUBLISHED');
    expect(receiver.deliveries.filter((d) => d.body.data.postId === postId)).toHaveLength(1);
    const work = statements.filter((s) => !TRANSACTION_CONTROL.test(s.sql));
    const lanes = t.runtime.queue instanceof BullmqQueue;
    expect(
      work.map((s) => s.sql.split(' ').slice(0, 2).join(' ')),
      work.map((s) => s.sql).join('\n'),
    ).toEqual(
      lanes
        ? [
            'with "due"', // claims the lane's due posts and their parts, reads them and their channels as claimed: one statement (PostgreSQL)
            'with "r"', // records the part as published, under the claim, and the post: one statement
          ]
        : [
            'update "posts"', // claims the post, reads it and its channel as claimed
            'update "post_parts"', // claims its part
            'update "post_parts"', // records the part as published, under the claim
            'update "posts"', // and the post
          ],
    );
    // Each names the post; the scale-out queue's lane claim takes whatever is due (it names none), then records by a list of posts.
    const names = (s: Statement) =>
      s.parameters.includes(postId) ||
      (lanes &&
        s.parameters.some((p) => typeof p === 'string' && p.startsWith('[') && JSON.stringify(JSON.parse(p)).includes(`"${postId}"`)));
    expect(work.slice(lanes ? 1 : 0).every(names)).toBe(true);
    // Embedded, the claim and the record in a transaction each (a begin and a commit each); scaled out, each statement is its own.
    expect(statements.length - work.length).toBe(lanes ? 0 : 4);
  });

  it('a thread reads its parts once per step, and only a thread', async () => {
    const { postId, statements } = await publishRecorded(
      [{ content: '<p>Root</p>' }, { content: '<p>Reply</p>', delay: 0 }],
      '2026-10-02T10:00:00.000Z',
    );
    expect(receiver.deliveries.filter((d) => d.body.data.postId === postId)).toHaveLength(2);
    const work = statements.filter((s) => !TRANSACTION_CONTROL.test(s.sql));
    // Two steps of a publish's statements (see above), plus one read of the parts for each. Scaled
    // out, the comment due at once is claimed by its id in the root's slot (two statements), not by the lane's claim.
    const lanes = t.runtime.queue instanceof BullmqQueue;
    expect(work, work.map((s) => s.sql.slice(0, 60)).join('\n')).toHaveLength(lanes ? 2 + 3 + 2 : 2 * 4 + 2);
  });
});
