import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, createTenant, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { seedQueuedPosts } from '../helpers/posts.ts';

// The sweep re-enqueues work the queue may have lost. Whatever the database holds, it must end,
// do bounded work each time, and leave the API answering. The engine is not started here: the
// sweep is called directly and nothing is published.
const clock = new ManualClock('2026-10-01T08:00:00.000Z');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});

/** Stores `count` queued posts straight in the database, `nextRunAt(i)` each. */
async function seedQueued(count: number, nextRunAt: (i: number) => string): Promise<void> {
  const tenant = await createTenant(t);
  const channel = await t.services.channels.create(tenant.workspaceId, {
    provider: 'webhook',
    name: 'Bulk',
    config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
  });
  await seedQueuedPosts(t, tenant.workspaceId, channel.id, count, nextRunAt, clock.now().toISOString());
}

/** Sweeps until one pass has covered everything; at most `rounds` sweeps. */
async function sweepUntilComplete(rounds: number) {
  const reports = [];
  for (let i = 0; i < rounds; i++) {
    const report = await t.publisher.sweep();
    reports.push(report);
    if (report.complete) break;
  }
  return reports;
}

describe('the sweep', () => {
  it('20,000 posts inside the horizon: bounded work per sweep, pages on with a cursor, never overlaps, the API answers', async () => {
    // Due in one minute, inside the two-minute horizon.
    await seedQueued(20_000, (i) => new Date(clock.now().getTime() + 60_000 + (i % 1000)).toISOString());
    const first = t.publisher.sweep();
    const second = t.publisher.sweep();
    const status = await t.request({ method: 'GET', url: '/public/v1/status' });
    expect(status.statusCode).toBe(200);
    const [a, b] = await Promise.all([first, second]);
    // A sweep asked for while one runs joins it rather than starting a second pass.
    expect(b).toBe(a);
    expect(a.enqueued).toBeLessThanOrEqual(t.publisher.options.sweepBudget);
    const reports = [a, ...(a.complete ? [] : await sweepUntilComplete(20))];
    expect(reports.at(-1)!.complete).toBe(true);
    for (const report of reports) expect(report.enqueued).toBeLessThanOrEqual(t.publisher.options.sweepBudget);
    expect(reports.reduce((n, r) => n + r.enqueued, 0)).toBe(20_000);
  }, 300_000);

  it('10,000 posts stored with extended-year dates (+010000-…) are never taken for due, and do not hold up the others', async () => {
    clock.set('2026-09-30T08:00:00.000Z');
    await seedQueued(
      10_000,
      (i) => `+010000-01-01T00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`,
    );
    await seedQueued(3, () => '2026-09-30T08:00:30.000Z');
    const reports = await sweepUntilComplete(20);
    expect(reports.at(-1)!.complete).toBe(true);
    expect(reports.reduce((n, r) => n + r.enqueued, 0)).toBe(3);
    expect((await t.request({ method: 'GET', url: '/public/v1/status' })).statusCode).toBe(200);
  }, 300_000);
});
