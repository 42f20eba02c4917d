import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createOutboundClient, type OutboundClient } from '../../src/net/outbound.ts';
import { EmbeddedQueue } from '../../src/publishing/embedded-queue.ts';
import type { JobHandlers, PublishJob } from '../../src/publishing/job-queue.ts';
import { BACKEND } from '../helpers/backend.ts';
import { createTestApp } from '../helpers/app.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';

const MINUTE = 60_000;

function queueWithPrepare(clock: ManualClock) {
  const prepared: number[] = [];
  const queue = new EmbeddedQueue(clock, { upcoming: { withinMs: 2 * MINUTE, prepare: () => prepared.push(clock.now().getTime()) } });
  return { queue, prepared };
}

/** Handlers that run `post` for each job; the embedded queue has no lanes, so `due` is never called. */
const posts = (post: JobHandlers['post']): JobHandlers => ({
  post,
  due: () => Promise.reject(new Error('the embedded queue wakes posts, not lanes')),
  idle: async () => true,
});

const job = (postId: string, clock: ManualClock, inMs: number): PublishJob => ({
  postId,
  runAt: new Date(clock.now().getTime() + inMs),
  provider: 'webhook',
});

describe('the embedded queue', () => {
  it('asks to prepare when a job due within the horizon is added while it runs jobs, not for later jobs nor before it runs', async () => {
    const clock = new ManualClock('2026-03-01T10:00:00.000Z');
    const { queue, prepared } = queueWithPrepare(clock);
    await queue.enqueue(job('before-start', clock, MINUTE));
    expect(prepared).toEqual([]);
    const ran: string[] = [];
    await queue.start(
      posts(async (j) => void ran.push(j.postId)),
      { concurrency: 2 },
    );
    // The job waiting at start is due within the horizon.
    expect(prepared).toHaveLength(1);
    await queue.enqueue(job('tomorrow', clock, 24 * 60 * MINUTE));
    await queue.enqueue(job('in-three-minutes', clock, 3 * MINUTE));
    expect(prepared).toHaveLength(1);
    await queue.enqueue(job('in-two-minutes', clock, 2 * MINUTE));
    expect(prepared).toHaveLength(2);
    expect(ran).toEqual([]);
    clock.advance(2 * MINUTE);
    await queue.idle();
    expect(ran).toEqual(['before-start', 'in-two-minutes']);
    await queue.stop();
  });

  it('a waiting queue with nothing due soon asks for nothing at start', async () => {
    const clock = new ManualClock('2026-03-01T10:00:00.000Z');
    const { queue, prepared } = queueWithPrepare(clock);
    await queue.enqueue(job('later', clock, 60 * MINUTE));
    await queue.start(posts(async () => {}));
    expect(prepared).toEqual([]);
    await queue.stop();
  });

  it('keeps only the jobs due within its horizon, and tells the handlers of those it turned away', async () => {
    const clock = new ManualClock('2026-03-01T10:00:00.000Z');
    const queue = new EmbeddedQueue(clock, { horizonMs: 2 * MINUTE });
    const beyond: string[] = [];
    const ran: string[] = [];
    await queue.start({ ...posts(async (j) => void ran.push(j.postId)), beyond: (runAt) => void beyond.push(runAt.toISOString()) });
    await queue.enqueue(job('at-the-edge', clock, 2 * MINUTE));
    await queue.enqueue(job('past-the-edge', clock, 2 * MINUTE + 1));
    await queue.enqueue(job('tomorrow', clock, 24 * 60 * MINUTE));
    expect(queue.size).toBe(1);
    expect(beyond).toEqual(['2026-03-01T10:02:00.001Z', '2026-03-02T10:00:00.000Z']);
    clock.advance(24 * 60 * MINUTE);
    await queue.idle();
    expect(ran).toEqual(['at-the-edge']);
    await queue.stop();
  });

  it('many jobs for one instant run once each, in order of time, at most `concurrency` at once', async () => {
    const clock = new ManualClock('2026-03-01T10:00:00.000Z');
    const queue = new EmbeddedQueue(clock);
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    await queue.start(
      posts(async (j) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        ran.push(j.postId);
        running--;
      }),
      { concurrency: 3 },
    );
    for (let i = 0; i < 30; i++) await queue.enqueue(job(`p${i}`, clock, MINUTE));
    await queue.enqueue(job('first', clock, MINUTE - 1));
    await queue.enqueue(job('p0', clock, MINUTE));
    clock.advance(MINUTE);
    await queue.idle();
    expect(ran).toHaveLength(31);
    expect(ran[0]).toBe('first');
    expect(new Set(ran).size).toBe(31);
    expect(most).toBe(3);
    await queue.stop();
  });
});

describe.skipIf(BACKEND !== 'sqlite')('the embedded engine loads the HTTP client ahead of a publish', () => {
  const prepared: string[] = [];
  const real = createOutboundClient({ allowLoopback: true });
  const outbound: OutboundClient = { ...real, prepare: () => void prepared.push('prepare') };
  afterAll(() => real.close());

  it('when a post due within the sweep horizon is scheduled, not for one due later', async () => {
    const clock = new ManualClock('2026-03-01T10:00:00.000Z');
    const t = await createTestApp({ clock, engine: true, outbound });
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-03-02T10:00:00.000Z' }));
    expect(prepared).toEqual([]);
    await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-03-01T10:01:00.000Z' }));
    expect(prepared).toEqual(['prepare']);
  });
});
