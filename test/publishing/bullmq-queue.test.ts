import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { BullmqQueue, type BullmqQueueOptions } from '../../src/publishing/bullmq-queue.ts';
import type { PublishJob } from '../../src/publishing/job-queue.ts';
import { createTestApp } from '../helpers/app.ts';
import { BACKEND, dropRedisPrefix, freshRedisPrefix, REDIS_URL } from '../helpers/backend.ts';

// The BullMQ queue needs Redis: it runs in the scale-out run (HERALD_TEST_BACKEND=postgres).
const scale = BACKEND === 'postgres';
const opened: Array<{ queue: BullmqQueue; prefix: string }> = [];

afterAll(async () => {
  for (const { queue, prefix } of opened) {
    await queue.close();
    await dropRedisPrefix(prefix);
  }
});

function makeQueue(overrides: Partial<BullmqQueueOptions> = {}) {
  const clock = (overrides.clock as ManualClock | undefined) ?? new ManualClock('2026-03-01T00:00:00.000Z');
  const prefix = overrides.prefix ?? freshRedisPrefix();
  const queue = new BullmqQueue({ redisUrl: REDIS_URL, clock, providers: ['webhook', 'bluesky'], ...overrides, prefix });
  opened.push({ queue, prefix });
  return { queue, clock };
}

function recorder() {
  const calls: PublishJob[] = [];
  return { calls, handler: async (job: PublishJob) => void calls.push(job) };
}

const job = (clock: ManualClock, offsetMs: number, provider = 'webhook', postId = randomUUID()): PublishJob => ({
  postId,
  runAt: new Date(clock.now().getTime() + offsetMs),
  provider,
});

describe.skipIf(!scale)('BullMQ job queue', () => {
  it('the scale-out switch builds the BullMQ queue and the Redis rate-limit store for every test app', async () => {
    const t = await createTestApp();
    expect(t.runtime.queue).toBeInstanceOf(BullmqQueue);
    expect(t.runtime.redis).toBeDefined();
    expect(t.config.redis?.prefix).toMatch(/^herald-t-/);
    expect(t.config.storage.kind).toBe('s3');
  });

  it('adding the same post and time twice runs it once; another time is another job', async () => {
    const { queue, clock } = makeQueue();
    const { calls, handler } = recorder();
    const first = job(clock, 0);
    await queue.enqueue(first);
    await queue.enqueue({ ...first });
    await queue.enqueue({ ...first, runAt: new Date(first.runAt.getTime() + 1) });
    await queue.start(handler, { concurrency: 4 });
    await queue.idle();
    clock.advance(1);
    await queue.idle();
    expect(calls.map((c) => c.runAt.getTime() - first.runAt.getTime()).sort()).toEqual([0, 1]);
    expect(calls.every((c) => c.postId === first.postId && c.provider === 'webhook')).toBe(true);
  });

  it('a job waits for its time on the injected clock, and runs when the clock reaches it', async () => {
    const { queue, clock } = makeQueue();
    const { calls, handler } = recorder();
    await queue.start(handler, { concurrency: 4 });
    const later = job(clock, 3600_000);
    await queue.enqueue(later);
    await queue.idle();
    clock.advance(3600_000 - 1);
    await queue.idle();
    expect(calls).toHaveLength(0);
    clock.advance(1);
    await queue.idle();
    expect(calls).toEqual([later]);
  });

  it('a job that comes up before its time on this clock is put back, not run early', async () => {
    const { queue, clock } = makeQueue();
    const { calls, handler } = recorder();
    await queue.start(handler, { concurrency: 4 });
    // Due in 100 ms of real time, but the test clock stands still: the worker picks it up and puts it back.
    await queue.enqueue(job(clock, 100));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(calls).toHaveLength(0);
    clock.advance(100);
    await queue.idle();
    expect(calls).toHaveLength(1);
  });

  it('each platform has its own lane and concurrency: a stuck platform does not hold up another', async () => {
    const { queue, clock } = makeQueue({ concurrencyByProvider: { bluesky: 1 } });
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    let webhookDone!: () => void;
    const webhookRan = new Promise<void>((resolve) => (webhookDone = resolve));
    await queue.start(
      async (j) => {
        started.push(j.provider);
        if (j.provider === 'bluesky') await stuck;
        else webhookDone();
      },
      { concurrency: 8 },
    );
    await queue.enqueue(job(clock, 0, 'bluesky'));
    await queue.enqueue(job(clock, 0, 'bluesky'));
    await queue.enqueue(job(clock, 0, 'webhook'));
    await webhookRan;
    expect(started.filter((p) => p === 'bluesky')).toHaveLength(1);
    release();
    await queue.idle();
    expect(started.sort()).toEqual(['bluesky', 'bluesky', 'webhook']);
    expect(queue.lanes).toEqual(['webhook', 'bluesky', 'default']);
  });

  it('a platform without a lane of its own runs in the default lane', async () => {
    const { queue, clock } = makeQueue();
    const { calls, handler } = recorder();
    await queue.start(handler);
    const odd = job(clock, 0, 'unknown');
    await queue.enqueue(odd);
    await queue.idle();
    expect(calls).toEqual([odd]);
    expect(queue.laneOf('unknown')).toBe('default');
  });

  it('remove drops the pending jobs of a post', async () => {
    const { queue, clock } = makeQueue();
    const { calls, handler } = recorder();
    await queue.start(handler);
    const kept = job(clock, 60_000);
    const dropped = job(clock, 60_000);
    await queue.enqueue(kept);
    await queue.enqueue(dropped);
    await queue.enqueue({ ...dropped, runAt: new Date(dropped.runAt.getTime() + 60_000) });
    await queue.remove(dropped.postId);
    clock.advance(10 * 60_000);
    await queue.idle();
    expect(calls).toEqual([kept]);
  });

  it('remove after a post already ran a job drops its next one (finished jobs stay listed in its index, harmlessly)', async () => {
    const { queue, clock } = makeQueue();
    const { calls, handler } = recorder();
    await queue.start(handler);
    const first = job(clock, 0);
    await queue.enqueue(first);
    await queue.idle();
    expect(calls).toEqual([first]);
    const next = { ...first, runAt: new Date(first.runAt.getTime() + 60_000) };
    await queue.enqueue(next);
    await queue.remove(first.postId);
    clock.advance(10 * 60_000);
    await queue.idle();
    expect(calls).toEqual([first]);
    // The same time queued again after the removal is a new job, and runs.
    await queue.enqueue(next);
    await queue.idle();
    expect(calls).toEqual([first, next]);
  });

  it('jobs live in Redis: a new process on the same prefix runs what another one queued', async () => {
    const prefix = freshRedisPrefix();
    const api = makeQueue({ prefix });
    const queued = job(api.clock, 0);
    await api.queue.enqueue(queued);
    await api.queue.close();
    const worker = makeQueue({ prefix, clock: api.clock });
    const { calls, handler } = recorder();
    await worker.queue.start(handler);
    await worker.queue.idle();
    expect(calls).toEqual([queued]);
  });

  it('another prefix (another deployment, another test) never sees the jobs', async () => {
    const mine = makeQueue();
    const theirs = makeQueue({ clock: mine.clock });
    const seenByMine = recorder();
    const seenByTheirs = recorder();
    await mine.queue.start(seenByMine.handler);
    await theirs.queue.start(seenByTheirs.handler);
    await mine.queue.enqueue(job(mine.clock, 0));
    await mine.queue.idle();
    await theirs.queue.idle();
    expect(seenByMine.calls).toHaveLength(1);
    expect(seenByTheirs.calls).toHaveLength(0);
  });

  it('stop waits for the jobs in progress to finish', async () => {
    const { queue, clock } = makeQueue();
    let finished = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    await queue.start(async () => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished = true;
    });
    await queue.enqueue(job(clock, 0));
    await running;
    await queue.stop();
    expect(finished).toBe(true);
  });
});
