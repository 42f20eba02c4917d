// Following a channel's newly published posts reads that channel's posts, never every published
// part of every channel: checked on each database's own plan of the statement the collector sends
// (PostgreSQL told not to prefer a sequential scan, which it would choose for tables this small).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listUnfollowedParts } from '../../src/analytics/analytics.repository.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { planOf, type Statement } from '../helpers/query-plan.ts';

let t: TestApp;
let recording: Statement[] = [];

beforeAll(async () => {
  t = await createTestApp({ onQuery: (query) => recording.push(query) });
});

afterAll(async () => {
  await t?.close();
});

it("reads the channel's posts by their channel index, then each one's parts", async () => {
  recording = [];
  await listUnfollowedParts(t.runtime.db, 'a-channel', '2026-01-01T00:00:00.000Z', 100);
  const statement = recording.find((s) => /from "posts"/i.test(s.sql));
  expect(statement).toBeDefined();
  const plan = await planOf(t, statement!);
  if (BACKEND === 'sqlite') {
    // The first line is the outer loop: the channel's posts, by the index that starts with the channel.
    expect(plan.split('\n')[0]).toMatch(/SEARCH posts USING INDEX posts_channel_state_idx \(channel_id=/);
    expect(plan).not.toMatch(/post_parts_sending_idx|SCAN post_parts/);
  } else {
    expect(plan).not.toMatch(/Seq Scan on post_parts|Seq Scan on posts/);
  }
});
