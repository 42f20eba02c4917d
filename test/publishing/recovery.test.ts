import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import type { PostPartsTable, PostsTable } from '../../src/posts/posts.table.ts';
import { RECOVERY_BATCH } from '../../src/publishing/publisher.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { partRow, postRow, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-07-02T08:00:00.000Z');
const STUCK = 500;
type Statement = { sql: string; parameters: readonly unknown[] };
let recording: Statement[] | null = null;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock, onQuery: (query) => recording?.push(query) });
});

describe('recovery of parts left SENDING', () => {
  it(`settles ${STUCK} stuck parts in bounded batches: no statement reads more than a batch`, async () => {
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    const stamp = clock.now().toISOString();
    const posts: PostsTable[] = [];
    const parts: PostPartsTable[] = [];
    for (let i = 0; i < STUCK; i++) {
      const id = `stuck-${String(i).padStart(5, '0')}`;
      posts.push(
        postRow({
          id,
          workspace_id: tenant.workspaceId,
          group_id: `g-${id}`,
          channel_id: tenant.channelId,
          state: 'PUBLISHING',
          publish_at: '2026-07-02T07:00:00.000Z',
          settings: '{"__type":"webhook"}',
          created_at: stamp,
        }),
      );
      // Some claims share an instant, so a batch can end in the middle of one.
      parts.push(
        partRow({
          post_id: id,
          content: 'x',
          state: 'SENDING',
          attempts: 1,
          claimed_at: new Date(Date.parse('2026-07-02T07:00:00.000Z') + Math.floor(i / 3) * 1000).toISOString(),
        }),
      );
    }
    for (let i = 0; i < STUCK; i += 250) {
      await t.runtime.db
        .insertInto('posts')
        .values(posts.slice(i, i + 250))
        .execute();
      await t.runtime.db
        .insertInto('post_parts')
        .values(parts.slice(i, i + 250))
        .execute();
    }

    recording = [];
    const settled = await t.publisher.recover({ all: true });
    const reads = recording.filter((s) => /select "post_id", "idx", "claimed_at" from "post_parts"/.test(s.sql));
    recording = null;

    expect(settled).toBe(STUCK);
    expect(reads).toHaveLength(Math.ceil((STUCK + 1) / RECOVERY_BATCH));
    for (const read of reads) expect(read.parameters.at(-1)).toBe(RECOVERY_BATCH);
    const left = await t.runtime.db
      .selectFrom('post_parts')
      .select('post_id')
      .where('state', '=', 'SENDING')
      .where('post_id', 'like', 'stuck-%')
      .execute();
    expect(left).toEqual([]);
    const states = await t.runtime.db
      .selectFrom('posts')
      .select(['state', 'error_kind'])
      .where('workspace_id', '=', tenant.workspaceId)
      .groupBy(['state', 'error_kind'])
      .execute();
    expect(states).toEqual([{ state: 'ERROR', error_kind: 'unconfirmed' }]);
  });
});
