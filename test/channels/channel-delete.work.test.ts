// The work of a channel deletion is bounded by the channel's own scheduled posts: its reads go by
// channel, in pages that need no sorting, and the publisher's due reads go by due order; none of
// them walks the posts of other channels or workspaces. Checked on each database's own plan of the
// statements the app really sent (PostgreSQL told not to prefer a sequential scan, which it would
// choose for tables this small anyway).
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { PostPartsTable, PostsTable } from '../../src/posts/posts.table.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { claimDuePosts, claimDueSteps, listDueOnDeletedChannels, listDuePosts } from '../../src/posts/posts.repository.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';

type Statement = { sql: string; parameters: readonly unknown[] };

const clock = new ManualClock('2026-11-24T08:00:00.000Z');
const HOOK = 'https://hooks.example.test/in';
let t: TestApp;
let recording: Statement[] | null = null;

beforeAll(async () => {
  t = await createTestApp({ clock, onQuery: (query) => recording?.push(query) });
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

/** The plan of one statement as text: SQLite's query plan, or PostgreSQL's with sequential scans made a last resort. */
async function planOf(statement: Statement): Promise<string> {
  if (BACKEND === 'sqlite') {
    const plan = await t.runtime.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, [...statement.parameters]));
    return plan.rows.map((row) => row.detail).join('\n');
  }
  return (t.runtime.db as Kysely<Database>).transaction().execute(async (trx: Transaction<Database>) => {
    await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${statement.sql}`, [...statement.parameters]));
    return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** A full pass over `posts` (under any alias) in a plan. */
const SCANS_POSTS = BACKEND === 'sqlite' ? /\bSCAN (posts|p)\b/ : /Seq Scan on posts/;
/** Rows sorted after they were read. */
const SORTS = BACKEND === 'sqlite' ? /TEMP B-TREE/ : /\bSort\b/;

const readsPostsByChannel = (s: Statement) => /from "posts" where "channel_id" = /i.test(s.sql);

/** `count` posts scheduled on a channel, written straight to the database (the API would take a while for this many). */
async function seedScheduled(workspaceId: string, channelId: string, count: number): Promise<string[]> {
  const stamp = clock.now().toISOString();
  const posts: PostsTable[] = [];
  const parts: PostPartsTable[] = [];
  for (let i = 0; i < count; i++) {
    const id = `sched-${channelId}-${String(i).padStart(4, '0')}`;
    // Four posts at each instant, so that pages end in the middle of one.
    const at = new Date(clock.now().getTime() + (1 + Math.floor(i / 4)) * 60_000).toISOString();
    posts.push({ id, workspace_id: workspaceId, group_id: id, channel_id: channelId, state: 'QUEUE', publish_at: at, settings: '{"__type":"webhook"}', tags: '[]', short_link: 0, release_id: null, release_url: null, error: null, error_kind: null, next_run_at: at, published_at: null, created_at: stamp, updated_at: stamp, deleted_at: null, version: 0 });
    parts.push({ post_id: id, idx: 0, content: `<p>Post ${i}</p>`, images: '[]', delay_minutes: 0, state: 'PENDING', attempts: 0, claimed_at: null, release_id: null, release_url: null, release_meta: null, error: null, published_at: null, lease_until: null });
  }
  for (let i = 0; i < count; i += 200) {
    await t.runtime.db.insertInto('posts').values(posts.slice(i, i + 200)).execute();
    await t.runtime.db.insertInto('post_parts').values(parts.slice(i, i + 200)).execute();
  }
  return posts.map((p) => p.id);
}

describe('a channel with many scheduled posts', () => {
  it('deleted with force moves every one of them to draft, a page at a time, and leaves other channels\' posts alone', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    const ids = await seedScheduled(tenant.workspaceId, tenant.channelId, 450);
    const others = await seedScheduled(other.workspaceId, other.channelId, 10);
    const statements = await recorded(async () => {
      const res = await t.request({ method: 'DELETE', url: `/public/v1/integrations/${tenant.channelId}?force=true`, key: tenant.key });
      expect(res.statusCode, res.body).toBe(200);
    });
    const states = await t.runtime.db.selectFrom('posts').select(['id', 'state', 'next_run_at']).where('id', 'in', [...ids, ...others]).execute();
    const byId = new Map(states.map((row) => [row.id, row]));
    for (const id of ids) expect(byId.get(id)).toMatchObject({ state: 'DRAFT', next_run_at: null });
    for (const id of others) expect(byId.get(id)).toMatchObject({ state: 'QUEUE' });
    // 450 posts in pages of 200: three pages, the last one short.
    const pages = statements.filter((s) => readsPostsByChannel(s) && /order by/.test(s.sql) && s.parameters.includes('QUEUE') && s.parameters.at(-1) === 200);
    expect(pages).toHaveLength(3);
  });
});

describe('query plans', () => {
  it('a channel deletion reads its own scheduled posts along the channel index', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const scheduled = [];
    for (let h = 1; h <= 3; h++) scheduled.push(...(await createOk(t, tenant, postBody(tenant.channelId, { date: new Date(clock.now().getTime() + h * 3_600_000).toISOString() }))));
    const remove = (query: string) => t.request({ method: 'DELETE', url: `/public/v1/integrations/${tenant.channelId}${query}`, key: tenant.key });

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
      const plan = await planOf(statement);
      expect(plan, statement.sql).toMatch(/posts_channel_state_idx/);
      expect(plan, statement.sql).not.toMatch(SCANS_POSTS);
      expect(plan, statement.sql).not.toMatch(SORTS);
    }
  });

  it('the publisher\'s due reads and claims go along the due order, not over every post', async () => {
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
      const plan = await planOf(statement);
      expect(plan, statement.sql).not.toMatch(SCANS_POSTS);
      expect(plan, statement.sql).toMatch(/posts_due_order_idx|posts_channel_state_idx/);
    }
  });
});
