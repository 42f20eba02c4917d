import { setImmediate as tick } from 'node:timers/promises';
import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import type { PostPartsTable, PostsTable } from '../../src/posts/posts.table.ts';
import { compileStringify } from '../../src/http/schema-compilers.ts';
import { POST_FIELDS, postListSchema } from '../../src/posts/posts.schema.ts';
import { POSTS_PAGE_BYTES, POSTS_PAGE_MAX, POSTS_READ_BATCH } from '../../src/posts/posts.service.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp, type Tenant } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { partRow, postRow, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
const HOOK = 'https://hooks.example.test/in';
const TOTAL = 20_000;
const WINDOW = 'startDate=2026-06-01T00:00:00Z&endDate=2027-06-01T00:00:00Z';

type Statement = { sql: string; parameters: readonly unknown[] };
let recording: Statement[] | null = null;
let t: TestApp;
let owner: Tenant & { channelId: string };
let onlyB: Tenant;
let channelB: string;

/** 20,000 drafts over a year, four at each instant (so order within an instant is by id), every fourth on channel B. */
async function seed() {
  const base = Date.parse('2026-06-01T00:00:00.000Z');
  const stamp = clock.now().toISOString();
  for (let from = 0; from < TOTAL; from += 500) {
    const posts: PostsTable[] = [];
    const parts: PostPartsTable[] = [];
    for (let i = from; i < Math.min(from + 500, TOTAL); i++) {
      const id = `seed-${String(i).padStart(6, '0')}`;
      posts.push(
        postRow({
          id,
          workspace_id: owner.workspaceId,
          group_id: `g-${id}`,
          channel_id: i % 4 === 3 ? channelB : owner.channelId,
          publish_at: new Date(base + Math.floor(i / 4) * 100 * 60_000).toISOString(),
          settings: '{"__type":"webhook"}',
          created_at: stamp,
        }),
      );
      parts.push(partRow({ post_id: id, content: `<p>Post ${i}</p>` }));
    }
    await t.runtime.db.insertInto('posts').values(posts).execute();
    await t.runtime.db.insertInto('post_parts').values(parts).execute();
  }
}

beforeAll(async () => {
  t = await createTestApp({ clock, onQuery: (query) => recording?.push(query) });
  owner = await webhookTenant(t, HOOK);
  channelB = (
    await t.services.channels.create(owner.workspaceId, {
      provider: 'webhook',
      name: 'B',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    })
  ).id;
  onlyB = await createTenant(t, { workspaceId: owner.workspaceId, channelIds: [channelB] });
  await seed();
}, 120_000);

type Page = { posts: Array<{ id: string; publishDate: string; content: string; integration: { id: string } }>; nextCursor: string | null };

async function page(key: string, query: string): Promise<{ page: Page; statements: Statement[] }> {
  recording = [];
  const res = await t.request({ method: 'GET', url: `/public/v1/posts?${WINDOW}&${query}`, key });
  const statements = recording;
  recording = null;
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  return { page: res.json() as Page, statements };
}

/** Counts the turns of the event loop from now until `stop`. */
function countTurns(): { readonly count: number; stop(): void } {
  let count = 0;
  let running = true;
  void (async () => {
    while (running) {
      await tick();
      count += 1;
    }
  })();
  return {
    get count() {
      return count;
    },
    stop: () => {
      running = false;
    },
  };
}

const isListing = (s: Statement) => /from "posts" inner join "channels"/i.test(s.sql);
const isParts = (s: Statement) => /from "post_parts"/i.test(s.sql);

describe('GET /posts over 20,000 posts', () => {
  it('pages through a year window with limit and cursor: every post once, in order, each page the same bounded work', async () => {
    const seen: Page['posts'] = [];
    const work: Array<{ listing: number; parts: number }> = [];
    let cursor: string | null = null;
    do {
      const { page: answer, statements }: { page: Page; statements: Statement[] } = await page(
        owner.key,
        `limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...answer.posts);
      expect(answer.nextCursor === null || typeof answer.nextCursor === 'string').toBe(true);
      cursor = answer.nextCursor;
      const listing = statements.filter(isListing);
      const parts = statements.filter(isParts);
      // Each statement reads a bounded batch: LIMIT batch+1 posts, parts of at most a batch of posts.
      for (const s of listing) expect(s.parameters.at(-1)).toBeLessThanOrEqual(POSTS_READ_BATCH + 1);
      for (const s of parts) expect(s.parameters.length).toBeLessThanOrEqual(POSTS_READ_BATCH);
      work.push({ listing: listing.length, parts: parts.length });
    } while (cursor !== null);

    expect(seen).toHaveLength(TOTAL);
    expect(new Set(seen.map((p) => p.id)).size).toBe(TOTAL);
    const order = seen.map((p) => `${p.publishDate} ${p.id}`);
    expect(order).toEqual([...order].sort());
    expect(seen[0]).toMatchObject({ id: 'seed-000000', content: '<p>Post 0</p>' });
    // Linear: 20 pages, and the last page costs what the first does (no page rereads the ones before it).
    expect(work).toHaveLength(TOTAL / 1000);
    const perPage = 1000 / POSTS_READ_BATCH;
    for (const w of work) expect(w).toEqual({ listing: perPage, parts: perPage });
  });

  it.runIf(BACKEND === 'sqlite')('each batch is read along the calendar index, without sorting the window', async () => {
    const { statements } = await page(
      owner.key,
      'limit=10&cursor=' + Buffer.from(JSON.stringify(['2026-09-01T00:00:00.000Z', 'seed-000000'])).toString('base64url'),
    );
    const [listing] = statements.filter(isListing);
    const plan = await t.runtime.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${listing!.sql}`, [...listing!.parameters]),
    );
    const details = plan.rows.map((r) => r.detail).join('\n');
    expect(details).toMatch(/posts_calendar_cursor_idx/);
    expect(details).not.toMatch(/TEMP B-TREE/);
  });

  it('without limit an answer holds the window up to 1000 posts, with a nextCursor to go on', async () => {
    const { page: first } = await page(owner.key, '');
    expect(first.posts).toHaveLength(POSTS_PAGE_MAX);
    expect(first.nextCursor).toEqual(expect.any(String));
    const { page: second } = await page(owner.key, `cursor=${first.nextCursor}`);
    expect(second.posts[0]!.id > first.posts.at(-1)!.id || second.posts[0]!.publishDate > first.posts.at(-1)!.publishDate).toBe(true);
    // A short window answers whole, with no cursor.
    const res = await t.request({
      method: 'GET',
      url: '/public/v1/posts?startDate=2026-06-01T00:00:00Z&endDate=2026-06-01T03:00:00Z',
      key: owner.key,
    });
    expect(res.json()).toMatchObject({ nextCursor: null });
    expect(res.json().posts).toHaveLength(8);
  });

  it("a channel-limited key pages through its own channel's posts only, in full pages", async () => {
    let cursor: string | null = null;
    let total = 0;
    let pages = 0;
    do {
      const { page: answer }: { page: Page } = await page(onlyB.key, `limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
      for (const post of answer.posts) expect(post.integration.id).toBe(channelB);
      total += answer.posts.length;
      pages += 1;
      expect(answer.nextCursor === null || typeof answer.nextCursor === 'string').toBe(true);
      cursor = answer.nextCursor;
    } while (cursor !== null);
    expect(total).toBe(TOTAL / 4);
    expect(pages).toBe(TOTAL / 4 / 1000);
  });

  it('a large listing yields the event loop between batches, so /status is answered while it runs', async () => {
    const turns = countTurns();
    const ticksAtBatch: number[] = [];
    let status: Promise<void> | null = null;
    let statusAnsweredAt: number | null = null;
    const observed: Statement[] = [];
    observed.push = (...items: Statement[]) => {
      for (let n = items.filter(isListing).length; n > 0; n--) {
        ticksAtBatch.push(turns.count);
        // While the listing is under way, another caller asks for /status.
        status ??= t.request({ method: 'GET', url: '/public/v1/status' }).then((res) => {
          expect(res.statusCode).toBe(200);
          statusAnsweredAt = turns.count;
        });
      }
      return Array.prototype.push.apply(observed, items);
    };
    recording = observed;
    const listing = await t.request({ method: 'GET', url: `/public/v1/posts?${WINDOW}`, key: owner.key });
    const listingAnsweredAt = turns.count;
    recording = null;
    turns.stop();
    await status;
    expect(listing.statusCode).toBe(200);
    expect(ticksAtBatch).toHaveLength(POSTS_PAGE_MAX / POSTS_READ_BATCH);
    // Between two batches the event loop turned at least once.
    for (let i = 1; i < ticksAtBatch.length; i++) expect(ticksAtBatch[i]!).toBeGreaterThan(ticksAtBatch[i - 1]!);
    expect(statusAnsweredAt).not.toBeNull();
    expect(statusAnsweredAt!).toBeLessThanOrEqual(listingAnsweredAt);
  });

  it('large posts end a page early, so an answer stays a few megabytes', async () => {
    const big = await webhookTenant(t, HOOK);
    const stamp = clock.now().toISOString();
    const content = 'x'.repeat(500_000);
    for (let i = 0; i < 12; i++) {
      const id = `big-${big.workspaceId}-${String(i).padStart(2, '0')}`;
      await t.runtime.db
        .insertInto('posts')
        .values(
          postRow({
            id,
            workspace_id: big.workspaceId,
            channel_id: big.channelId,
            publish_at: '2026-07-01T00:00:00.000Z',
            created_at: stamp,
          }),
        )
        .execute();
      await t.runtime.db
        .insertInto('post_parts')
        .values(partRow({ post_id: id, content }))
        .execute();
    }
    const { page: first } = await page(big.key, '');
    expect(first.posts).toHaveLength(Math.ceil(POSTS_PAGE_BYTES / (content.length + 2)));
    expect(first.nextCursor).toEqual(expect.any(String));
    const { page: second } = await page(big.key, `cursor=${first.nextCursor}`);
    expect(second.nextCursor).toBeNull();
    expect([...first.posts, ...second.posts].map((p) => p.id)).toEqual(
      Array.from({ length: 12 }, (_, i) => `big-${big.workspaceId}-${String(i).padStart(2, '0')}`),
    );
  });

  it('refuses a cursor it did not give and a limit out of range', async () => {
    for (const query of ['cursor=not-a-cursor', `cursor=${Buffer.from('["x"]').toString('base64url')}`]) {
      const res = await t.request({ method: 'GET', url: `/public/v1/posts?${WINDOW}&${query}`, key: owner.key });
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_cursor' });
    }
    for (const limit of ['0', '1001', 'ten']) {
      const res = await t.request({ method: 'GET', url: `/public/v1/posts?${WINDOW}&limit=${limit}`, key: owner.key });
      expect(res.statusCode, limit).toBe(400);
    }
  });
});

describe('GET /posts: what one request does in one piece, and fields', () => {
  it('without fields or limit the answer is what the Post schema writes, every property in its order, as before', async () => {
    const res = await t.request({ method: 'GET', url: `/public/v1/posts?${WINDOW}`, key: owner.key });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json() as { posts: Array<Record<string, unknown>>; nextCursor: string | null };
    expect(body.posts).toHaveLength(POSTS_PAGE_MAX);
    expect(Object.keys(body)).toEqual(['posts', 'nextCursor']);
    for (const post of body.posts) expect(Object.keys(post)).toEqual(POST_FIELDS);
    // Byte for byte what the route's serializer wrote of the same answer (compiled, or Zod's output as JSON).
    const serialize = compileStringify(postListSchema) ?? ((answer: unknown) => JSON.stringify(postListSchema.parse(answer)));
    expect(res.body).toBe(serialize(body));
  });

  it.runIf(BACKEND === 'sqlite')(
    'a page of 1000 is written a batch at a time: the event loop turns between batches after the last read',
    async () => {
      const turns = countTurns();
      // On SQLite the reads run on the event loop, so the turns after the last one are the writing's own.
      const turnsAfterLastRead = async (query: string) => {
        let lastRead = 0;
        const observed: Statement[] = [];
        observed.push = (...items: Statement[]) => {
          lastRead = turns.count;
          return Array.prototype.push.apply(observed, items);
        };
        recording = observed;
        const res = await t.request({ method: 'GET', url: `/public/v1/posts?${WINDOW}&${query}`, key: owner.key });
        recording = null;
        expect(res.statusCode).toBe(200);
        return turns.count - lastRead;
      };
      const oneBatch = await turnsAfterLastRead(`limit=${POSTS_READ_BATCH}`);
      const fullPage = await turnsAfterLastRead(`limit=${POSTS_PAGE_MAX}`);
      turns.stop();
      expect(fullPage - oneBatch).toBeGreaterThanOrEqual(POSTS_PAGE_MAX / POSTS_READ_BATCH - 1);
    },
  );

  it('fields: each post holds only the named properties, in the schema order, and pages as without it', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let partsRead = 0;
    do {
      const { page: answer, statements }: { page: Page; statements: Statement[] } = await page(
        owner.key,
        `limit=1000&fields=state,publishDate,id,integration${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const post of answer.posts) expect(Object.keys(post)).toEqual(['id', 'state', 'publishDate', 'integration']);
      seen.push(...answer.posts.map((p) => p.id));
      partsRead += statements.filter(isParts).length;
      cursor = answer.nextCursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(TOTAL);
    expect(new Set(seen).size).toBe(TOTAL);
    // Neither content nor value asked for: the posts' parts are not read.
    expect(partsRead).toBe(0);

    const { page: withContent, statements } = await page(owner.key, 'limit=2&fields=id,content');
    expect(withContent.posts).toEqual([
      { id: 'seed-000000', content: '<p>Post 0</p>' },
      { id: 'seed-000001', content: '<p>Post 1</p>' },
    ]);
    expect(statements.filter(isParts)).toHaveLength(1);
  });

  it('fields: a channel-limited key still sees only its channel', async () => {
    const { page: answer } = await page(onlyB.key, 'limit=50&fields=id,integration');
    expect(answer.posts).toHaveLength(50);
    for (const post of answer.posts) expect(post.integration.id).toBe(channelB);
  });

  it("refuses an unknown, empty or repeated field with the spec's validation error", async () => {
    for (const fields of ['id,title', '', 'id,,state', 'id,id', 'ID', 'integration.id']) {
      const res = await t.request({
        method: 'GET',
        url: `/public/v1/posts?${WINDOW}&fields=${encodeURIComponent(fields)}`,
        key: owner.key,
      });
      expect(res.statusCode, fields).toBe(400);
      expect(res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: [expect.stringMatching(/^querystring\.fields: /)] });
    }
    const res = await t.request({ method: 'GET', url: `/public/v1/posts?${WINDOW}&fields=id,title`, key: owner.key });
    expect(res.json().message[0]).toMatch(/unknown field "title"; the fields of a post are id, group, state/);
  });
});
