// A measurement, not a check: one collection cycle over 100 Mastodon channels and 20,000 published
// posts (the platform answers every batch; the statuses are unknown to it, so no snapshot is
// written). Run with HERALD_ANALYTICS_MEASURE=1; it prints the ticks, calls and time per tick.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { FakeMastodon } from '../providers/mastodon/fake-mastodon.ts';

const clock = new ManualClock('2026-06-01T10:00:00.000Z');
let t: TestApp;
let fake: FakeMastodon;
beforeAll(async () => {
  if (!process.env.HERALD_ANALYTICS_MEASURE) return;
  fake = await new FakeMastodon().start();
  t = await createTestApp({ clock, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

it.runIf(process.env.HERALD_ANALYTICS_MEASURE)(
  'measures one collection cycle over 100 channels and 20,000 published posts',
  { timeout: 600_000 },
  async () => {
    const tenant = await createTenant(t);
    const token = fake.tokenFor('1');
    const stamp = clock.now().toISOString();
    for (let c = 0; c < 100; c++) {
      const channel = await t.services.channels.create(tenant.workspaceId, {
        provider: 'mastodon',
        name: `m${c}`,
        config: { instance: fake.url, accessToken: token },
      });
      const posts = [];
      const parts = [];
      for (let i = 0; i < 200; i++) {
        const id = newId();
        posts.push({
          id,
          workspace_id: tenant.workspaceId,
          group_id: newId(),
          channel_id: channel.id,
          state: 'PUBLISHED' as const,
          publish_at: stamp,
          settings: '{}',
          tags: '[]',
          short_link: 0,
          release_id: `${c}${i}`,
          release_url: null,
          error: null,
          error_kind: null,
          next_run_at: null,
          published_at: stamp,
          created_at: stamp,
          updated_at: stamp,
          deleted_at: null,
          version: 0,
        });
        parts.push({
          post_id: id,
          idx: 0,
          content: 'x',
          images: '[]',
          delay_minutes: 0,
          state: 'PUBLISHED' as const,
          attempts: 1,
          claimed_at: null,
          lease_until: null,
          release_id: `${c}${i}`,
          release_url: null,
          release_meta: null,
          error: null,
          published_at: stamp,
        });
      }
      await t.runtime.db.insertInto('posts').values(posts).execute();
      await t.runtime.db.insertInto('post_parts').values(parts).execute();
    }
    const before = fake.received.length;
    const ticks: Array<{ ms: number; channels: number; calls: number }> = [];
    for (;;) {
      const start = performance.now();
      const report = await t.services.analytics.collector.collectDue();
      if (report.channels === 0) break;
      ticks.push({ ms: Math.round(performance.now() - start), channels: report.channels, calls: report.calls });
    }
    const calls = fake.received.length - before;
    console.log('MEASURE', JSON.stringify({ ticks: ticks.length, calls, perTick: ticks }));
    expect(calls).toBeGreaterThan(0);
  },
);
