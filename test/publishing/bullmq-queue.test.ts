import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { BullmqQueue, type BullmqQueueOptions } from '../../src/publishing/bullmq-queue.ts';
import type { JobHandlers, Lane, PublishJob } from '../../src/publishing/job-queue.ts';
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

type Wake = { lane: Lane; at: number };

/** Handlers that record each wake (the lane and the time on the test clock) and each job of a post. */
function recorder(clock: ManualClock, onDue: (lane: Lane) => Promise<void> = async () => {}) {
  const wakes: Wake[] = [];
  const posts: PublishJob[] = [];
  const handlers: JobHandlers = {
    post: async (job) => void posts.push(job),
    due: async (lane) => {
      wakes.push({ lane, at: clock.now().getTime() });
      await onDue(lane);
    },
    idle: async () => true,
  };
  return { wakes, posts, handlers };
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

  it('posts of a lane due at the same instant share one wake; another instant is another wake', async () => {
    const { queue, clock } = makeQueue();
    const { wakes, handlers } = recorder(clock);
    const first = job(clock, 60_000);
    await queue.enqueue(first);
    await queue.enqueue(job(clock, 60_000));
    await queue.enqueue({ ...first });
    await queue.enqueue({ ...first, runAt: new Date(first.runAt.getTime() + 1) });
    await queue.start(handlers, { concurrency: 4 });
    clock.advance(60_000);
    await queue.idle();
    expect(wakes.map((w) => w.lane.name)).toEqual(['webhook']);
    clock.advance(1);
    await queue.idle();
    expect(wakes.map((w) => w.at - first.runAt.getTime())).toEqual([0, 1]);
  });

  it('the posts due now asked for in one turn make one wake, and a post asked for later another (never folded into a wake that may have looked already)', async () => {
    const { queue, clock } = makeQueue();
    const { wakes, handlers } = recorder(clock);
    await queue.start(handlers, { concurrency: 4 });
    await Promise.all([queue.enqueue(job(clock, 0)), queue.enqueue(job(clock, -5_000)), queue.enqueue(job(clock, 0))]);
    await queue.idle();
    expect(wakes).toHaveLength(1);
    await queue.enqueue(job(clock, 0));
    await queue.idle();
    expect(wakes).toHaveLength(2);
  });

  it('a wake waits for its time on the injected clock, and runs when the clock reaches it', async () => {
    const { queue, clock } = makeQueue();
    const { wakes, handlers } = recorder(clock);
    await queue.start(handlers, { concurrency: 4 });
    const later = job(clock, 3600_000);
    await queue.enqueue(later);
    await queue.idle();
    clock.advance(3600_000 - 1);
    await queue.idle();
    expect(wakes).toHaveLength(0);
    clock.advance(1);
    await queue.idle();
    expect(wakes.map((w) => w.at)).toEqual([later.runAt.getTime()]);
  });

  it('a wake that comes up before its time on this clock is put back, not run early', async () => {
    const { queue, clock } = makeQueue();
    const { wakes, handlers } = recorder(clock);
    await queue.start(handlers, { concurrency: 4 });
    // Due in 100 ms of real time, but the test clock stands still: the worker picks it up and puts it back.
    await queue.enqueue(job(clock, 100));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(wakes).toHaveLength(0);
    clock.advance(100);
    await queue.idle();
    expect(wakes).toHaveLength(1);
  });

  it('each platform has its own lane: its wakes name its platforms and its concurrency, and a stuck lane does not hold up another', async () => {
    const { queue, clock } = makeQueue({ concurrencyByProvider: { bluesky: 3 } });
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    let webhookDone!: () => void;
    const webhookRan = new Promise<void>((resolve) => (webhookDone = resolve));
    const { wakes, handlers } = recorder(clock, async (lane) => {
      if (lane.name === 'bluesky') await stuck;
      else webhookDone();
    });
    await queue.start(handlers, { concurrency: 8 });
    await queue.enqueue(job(clock, 0, 'bluesky'));
    await queue.enqueue(job(clock, 0, 'webhook'));
    await webhookRan;
    release();
    await queue.idle();
    const lanes = Object.fromEntries(wakes.map((w) => [w.lane.name, w.lane]));
    expect(lanes).toEqual({
      bluesky: { name: 'bluesky', platforms: { only: ['bluesky'] }, concurrency: 3 },
      webhook: { name: 'webhook', platforms: { only: ['webhook'] }, concurrency: 8 },
    });
    expect(queue.lanes).toEqual(['webhook', 'bluesky', 'default']);
  });

  it('a platform without a lane of its own wakes the default lane, which takes every platform but those with lanes', async () => {
    const { queue, clock } = makeQueue();
    const { wakes, handlers } = recorder(clock);
    await queue.start(handlers);
    await queue.enqueue(job(clock, 0, 'unknown'));
    await queue.idle();
    expect(wakes.map((w) => w.lane)).toEqual([{ name: 'default', platforms: { except: ['webhook', 'bluesky'] }, concurrency: 8 }]);
    expect(queue.laneOf('unknown')).toBe('default');
  });

  it('a wake that asks to share adds another wake of its lane', async () => {
    const { queue, clock } = makeQueue();
    let asked = false;
    const wakes: string[] = [];
    await queue.start({
      post: async () => {},
      due: async (lane, share) => {
        wakes.push(lane.name);
        if (!asked) {
          asked = true;
          share();
        }
      },
      idle: async () => true,
    });
    await queue.enqueue(job(clock, 0));
    await queue.idle();
    expect(wakes).toEqual(['webhook', 'webhook']);
  });

  it('a job of one post, queued by an earlier version, still runs through the post handler', async () => {
    const { queue, clock } = makeQueue();
    const { posts, wakes, handlers } = recorder(clock);
    const old = job(clock, 0);
    const earlier = new Queue(BullmqQueue.queueName('webhook'), { connection: { url: REDIS_URL }, prefix: opened.at(-1)!.prefix });
    await earlier.add(
      'publish',
      { postId: old.postId, runAt: old.runAt.getTime(), provider: 'webhook' },
      { jobId: `${old.postId}_${old.runAt.getTime()}`, removeOnComplete: true },
    );
    await earlier.close();
    await queue.start(handlers);
    await queue.idle();
    expect(posts).toEqual([old]);
    expect(wakes).toEqual([]);
  });

  it('wakes live in Redis: a new process on the same prefix runs what another one queued', async () => {
    const prefix = freshRedisPrefix();
    const api = makeQueue({ prefix });
    await api.queue.enqueue(job(api.clock, 0));
    await api.queue.close();
    const worker = makeQueue({ prefix, clock: api.clock });
    const { wakes, handlers } = recorder(api.clock);
    await worker.queue.start(handlers);
    await worker.queue.idle();
    expect(wakes).toHaveLength(1);
  });

  it('another prefix (another deployment, another test) never sees the wakes', async () => {
    const mine = makeQueue();
    const theirs = makeQueue({ clock: mine.clock });
    const seenByMine = recorder(mine.clock);
    const seenByTheirs = recorder(mine.clock);
    await mine.queue.start(seenByMine.handlers);
    await theirs.queue.start(seenByTheirs.handlers);
    await mine.queue.enqueue(job(mine.clock, 0));
    await mine.queue.idle();
    await theirs.queue.idle();
    expect(seenByMine.wakes).toHaveLength(1);
    expect(seenByTheirs.wakes).toHaveLength(0);
  });

  it('stop and idle wait for the wake in progress and for the publishes it started', async () => {
    const { queue, clock } = makeQueue();
    let published = false;
    let publishing: Promise<void> | null = null;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    await queue.start({
      post: async () => {},
      due: async () => {
        started();
        // The wake ends once its posts are claimed; their publishes go on.
        publishing = new Promise<void>((resolve) => setTimeout(resolve, 300)).then(() => void (published = true));
      },
      idle: async () => {
        if (!publishing || published) return true;
        await publishing;
        return false;
      },
    });
    await queue.enqueue(job(clock, 0));
    await running;
    await queue.stop();
    expect(published).toBe(true);
  });
});
