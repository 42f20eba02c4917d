// The work of a channel deletion is bounded by the channel's own scheduled posts: its reads go by
// channel, in pages that need no sorting, and the publisher's due reads go by due order; none of
// them walks the posts of other channels or workspaces. Checked on each database's own plan of the
// statements the app really sent (PostgreSQL told not to prefer a sequential scan, which it would
// choose for tables this small anyway).
import { beforeAll, describe, expect, it } from 'vitest';
import type { PostPartsTable, PostsTable } from '../../src/posts/posts.table.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { claimDuePosts, claimDueSteps, listDueOnDeletedChannels, listDuePosts } from '../../src/posts/post-claims.repository.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { planOf, type Statement } from '../helpers/query-plan.ts';
import { createOk, partRow, postBody, postRow, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-11-24T08:00:00.000Z');
const HOOK = 'https://hooks.example.test/in';
let t: TestApp;
let recording: Statement[] | null = null;
/** Sees each statement as it is sent. */
let watch: ((statement: Statement) => void) | null = null;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    onQuery: (query) => {
      recording?.push(query);
      watch?.(query);
    },
  });
});

async function recorded(run: () => Promise<unknown>): Promise<Statement[]> {
  recording = [];
  try {
    await run();
    return recording;
  } finally {
    recording = null;
  }
}

/** A full pass over `posts` (under any alias) in a plan. */
const SCANS_POSTS = BACKEND === 'sqlite' ? /\bSCAN (posts|p)\b/ : /Seq Scan on posts/;
/** Rows sorted after they were read. */
const SORTS = BACKEND === 'sqlite' ? /TEMP B-TREE/ : /\bSort\b/;

const readsPostsByChannel = (s: Statement) => /from "posts" where "channel_id" = /i.test(s.sql);

/**
 * `count` posts on a channel, written straight to the database (the API would take a while for
 * this many): scheduled, or published with two parts each.
 */
async function seedPosts(workspaceId: string, channelId: string, count: number, state: 'QUEUE' | 'PUBLISHED' = 'QUEUE'): Promise<string[]> {
  const stamp = clock.now().toISOString();
  const posts: PostsTable[] = [];
  const parts: PostPartsTable[] = [];
  const published = state === 'PUBLISHED';
  for (let i = 0; i < count; i++) {
    const id = `${state.toLowerCase()}-${channelId}-${String(i).padStart(4, '0')}`;
    // Four posts at each instant, so that pages end in the middle of one.
    const at = new Date(clock.now().getTime() + (published ? -1 : 1) * (1 + Math.floor(i / 4)) * 60_000).toISOString();
    posts.push(
      postRow({
        id,
        workspace_id: workspaceId,
        channel_id: channelId,
        state,
        publish_at: at,
        settings: '{"__type":"webhook"}',
        release_id: published ? `r-${i}` : null,
        next_run_at: published ? null : at,
        published_at: published ? at : null,
        created_at: stamp,
      }),
    );
    for (let idx = 0; idx < (published ? 2 : 1); idx++) {
      parts.push(
        partRow({
          post_id: id,
          idx,
          content: `<p>Post ${i}.${idx}</p>`,
          state: published ? 'PUBLISHED' : 'PENDING',
          attempts: published ? 1 : 0,
          release_id: published ? `r-${i}-${idx}` : null,
          published_at: published ? at : null,
        }),
      );
    }
  }
  for (let i = 0; i < posts.length; i += 200)
    await t.runtime.db
      .insertInto('posts')
      .values(posts.slice(i, i + 200))
      .execute();
  for (let i = 0; i < parts.length; i += 200)
    await t.runtime.db
      .insertInto('post_parts')
      .values(parts.slice(i, i + 200))
      .execute();
  return posts.map((p) => p.id);
}

describe('a channel with many scheduled posts', () => {
  it("deleted with force moves every one of them to draft, a page at a time, and leaves other channels' posts alone", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    const ids = await seedPosts(tenant.workspaceId, tenant.channelId, 450);
    const others = await seedPosts(other.workspaceId, other.channelId, 10);
    const statements = await recorded(async () => {
      const res = await t.request({ method: 'DELETE', url: `/public/v1/integrations/${tenant.channelId}?force=true`, key: tenant.key });
      expect(res.statusCode, res.body).toBe(200);
    });
    const states = await t.runtime.db
      .selectFrom('posts')
      .select(['id', 'state', 'next_run_at'])
      .where('id', 'in', [...ids, ...others])
      .execute();
    const byId = new Map(states.map((row) => [row.id, row]));
    for (const id of ids) expect(byId.get(id)).toMatchObject({ state: 'DRAFT', next_run_at: null });
    for (const id of others) expect(byId.get(id)).toMatchObject({ state: 'QUEUE' });
    // 450 posts in pages of 200: three pages, the last one short.
    const pages = statements.filter(
      (s) => readsPostsByChannel(s) && /order by/.test(s.sql) && s.parameters.includes('QUEUE') && s.parameters.at(-1) === 200,
    );
    expect(pages).toHaveLength(3);
  });
});

describe('a channel purged with many posts', () => {
  it("deletes them a page of 500 at a time, along the channel index, then the channel; other channels' posts stay", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    const ids = [
      ...(await seedPosts(tenant.workspaceId, tenant.channelId, 1_050, 'PUBLISHED')),
      ...(await seedPosts(tenant.workspaceId, tenant.channelId, 50)),
    ];
    const others = await seedPosts(other.workspaceId, other.channelId, 10, 'PUBLISHED');
    // A timer set while the first page is deleted: it fires before the next page (the purge lets
    // the event loop turn between pages), not after the whole purge.
    let timerFiredAt: number | null = null;
    watch = (statement) => {
      if (!/^delete from "posts"/i.test(statement.sql)) return;
      watch = null;
      setTimeout(() => (timerFiredAt = recording?.length ?? Number.POSITIVE_INFINITY), 0);
    };
    const statements = await recorded(() => t.services.channels.delete(tenant.workspaceId, tenant.channelId, { force: true, purge: true }));
    watch = null;

    const db = t.runtime.db;
    expect(await db.selectFrom('posts').select('id').where('id', 'in', ids).execute()).toEqual([]);
    expect(await db.selectFrom('post_parts').select('post_id').where('post_id', 'in', ids).execute()).toEqual([]);
    expect(await db.selectFrom('channels').select('id').where('id', '=', tenant.channelId).execute()).toEqual([]);
    expect(await db.selectFrom('posts').select('id').where('id', 'in', others).execute()).toHaveLength(10);
    expect(await db.selectFrom('post_parts').select('post_id').where('post_id', 'in', others).execute()).toHaveLength(20);

    // 1,100 posts: pages of 500, 500 and 100, each a statement (and a transaction) of its own.
    const deletes = statements.filter((s) => /^delete from "posts"/i.test(s.sql));
    expect(deletes).toHaveLength(3);
    for (const statement of deletes) {
      expect(statement.parameters).toEqual([tenant.channelId, 500]);
      const plan = await planOf(t, statement);
      expect(plan, statement.sql).toMatch(/posts_channel_state_idx/);
      expect(plan, statement.sql).not.toMatch(SCANS_POSTS);
    }
    expect(timerFiredAt).not.toBeNull();
    expect(timerFiredAt!).toBeLessThanOrEqual(statements.indexOf(deletes[1]!));
    // The channel goes last, once its posts are gone.
    const last = statements.findLastIndex((s) => /^delete from "channels"/i.test(s.sql));
    expect(last).toBeGreaterThan(statements.indexOf(deletes.at(-1)!));
  });
});

describe('query plans', () => {
  it('a channel deletion reads its own scheduled posts along the channel index', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const scheduled = [];
    for (let h = 1; h <= 3; h++)
      scheduled.push(
        ...(await createOk(t, tenant, postBody(tenant.channelId, { date: new Date(clock.now().getTime() + h * 3_600_000).toISOString() }))),
      );
    const remove = (query: string) =>
      t.request({ method: 'DELETE', url: `/public/v1/integrations/${tenant.channelId}${query}`, key: tenant.key });

    let refused;
    const statements = await recorded(async () => {
      refused = await remove('');
    });
    expect(refused!.statusCode).toBe(409);
    const forced = await recorded(async () => {
      const res = await remove('?force=true');
      expect(res.statusCode, res.body).toBe(200);
    });
    statements.push(...forced);

    const byChannel = statements.filter(readsPostsByChannel);
    // The refusal counts and names them; the forced deletion counts them, looks for one being published and lists them to unschedule.
    expect(byChannel.length).toBeGreaterThanOrEqual(5);
    for (const statement of byChannel) {
      const plan = await planOf(t, statement);
      expect(plan, statement.sql).toMatch(/posts_channel_state_idx/);
      expect(plan, statement.sql).not.toMatch(SCANS_POSTS);
      expect(plan, statement.sql).not.toMatch(SORTS);
    }
  });

  it("the publisher's due reads and claims go along the due order, not over every post", async () => {
    const db = t.runtime.db;
    const now = clock.now().toISOString();
    const statements = await recorded(async () => {
      await listDuePosts(db, now, null, 100);
      await listDuePosts(db, now, { nextRunAt: now, id: 'x' }, 100);
      await listDueOnDeletedChannels(db, now, 100);
      if (BACKEND === 'sqlite') await claimDuePosts(db, { except: [] }, now, 10);
      else await claimDueSteps(db, { except: [] }, { now, claimedAt: now, leaseUntil: now }, 10);
    });
    const reads = statements.filter((s) => /"posts"/.test(s.sql));
    expect(reads.length).toBe(4);
    for (const statement of reads) {
      const plan = await planOf(t, statement);
      expect(plan, statement.sql).not.toMatch(SCANS_POSTS);
      expect(plan, statement.sql).toMatch(/posts_due_order_idx|posts_channel_state_idx/);
    }
  });
});
