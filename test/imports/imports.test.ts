import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_LEASE_MS } from '../../src/imports/imports.service.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { accessOf, createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { multipart, png } from '../helpers/media-files.ts';
import { webhookTenant } from '../helpers/posts.ts';

/**
 * Rows of the large import: 5,000 on SQLite; on PostgreSQL each row's checks are a dozen round
 * trips in sequence, so the same import takes minutes on a shared machine and the test takes 1,000.
 */
const LARGE = BACKEND === 'postgres' ? 1000 : 5000;

/** Bulk import of posts through HTTP on the configured backend. */

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
let t: TestApp;
const HOOK = 'https://hooks.example.test/in';

beforeAll(async () => {
  t = await createTestApp({ clock });
});

type Import = {
  id: string;
  status: string;
  total: number;
  validated: number;
  created: number;
  errors: Array<{ row: number; field: string; message: string }>;
  posts: Array<{ row: number; postIds: string[] }>;
};

async function importPosts(tenant: Tenant, body: unknown, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/public/v1/imports', key: tenant.key, payload: body as object, headers });
}

async function calendarCount(tenant: Tenant, app: TestApp = t): Promise<number> {
  const res = await app.request({
    method: 'GET',
    url: '/public/v1/posts?startDate=2026-05-01T00:00:00Z&endDate=2027-04-30T00:00:00Z&fields=id',
    key: tenant.key,
  });
  return (res.json() as { posts: unknown[] }).posts.length;
}

const good = (channelId: string, n = 1) => ({ channels: [channelId], date: `2026-06-0${n}T09:00:00Z`, content: `Row ${n}` });

describe('bulk import', () => {
  it('a dry run checks every row as POST /posts would and answers per-row errors by row and field, creating nothing', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    const res = await importPosts(tenant, {
      dryRun: true,
      rows: [
        good(tenant.channelId, 1),
        { channels: [other.channelId], date: '2026-06-02T09:00:00Z', content: 'Another workspace' },
        { channels: [tenant.channelId], date: '2026-04-01T09:00:00Z', content: 'In the past' },
        { channels: [tenant.channelId], date: '2026-06-03T09:00', content: 'No zone' },
        { channels: [tenant.channelId], date: '2026-06-04T09:00:00Z', content: 'x', media: 'http://127.0.0.1:9/a.png' },
        { channels: [tenant.channelId], date: 'queue', content: 'Queued **bold**', format: 'markdown' },
        { date: '2026-06-05T09:00:00Z', content: 'No channel' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = res.json() as Import;
    expect(result).toMatchObject({ status: 'invalid', total: 7, validated: 7, created: 0 });
    expect(result.errors.map((e) => [e.row, e.field])).toEqual([
      [2, 'channels'],
      [3, 'date'],
      [4, 'date'],
      [5, 'media'],
      [7, 'channels'],
    ]);
    expect(await calendarCount(tenant)).toBe(0);

    const clean = await importPosts(tenant, { dryRun: true, rows: [good(tenant.channelId, 1), good(tenant.channelId, 2)] });
    expect(clean.json()).toMatchObject({ status: 'done', created: 0, errors: [] });
    expect(await calendarCount(tenant)).toBe(0);
  });

  it('a real import is all or nothing by default; partial creates the good rows and reports the others', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const rows = [good(tenant.channelId, 1), { channels: ['nope'], date: '2026-06-02T09:00:00Z', content: 'x' }, good(tenant.channelId, 3)];
    const all = (await importPosts(tenant, { rows })).json() as Import;
    expect(all).toMatchObject({ status: 'invalid', created: 0 });
    expect(all.errors).toEqual([{ row: 2, field: 'channels', message: expect.stringContaining('no channel nope') }]);
    expect(await calendarCount(tenant)).toBe(0);

    const some = (await importPosts(tenant, { rows, partial: true })).json() as Import;
    expect(some).toMatchObject({ status: 'invalid', created: 2 });
    expect(some.posts.map((p) => p.row)).toEqual([1, 3]);
    expect(await calendarCount(tenant)).toBe(2);
  });

  it('takes CSV with a header, `|`-separated lists and "queue"; an Idempotency-Key makes a retry answer the same import', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const csv = [
      'channels,date,content,format,tags,comments',
      `${tenant.channelId},2026-06-01T09:00:00Z,"Hello, world",text,a|b,"[{""content"":""A comment"",""delay"":5}]"`,
      `${tenant.channelId},queue,<p>Queued</p>,html,,`,
    ].join('\n');
    const first = await importPosts(tenant, { csv }, { 'idempotency-key': 'import-1' });
    expect(first.statusCode, first.body).toBe(200);
    const result = first.json() as Import;
    expect(result).toMatchObject({ status: 'done', created: 2, errors: [] });
    const [post] = result.posts;
    const read = await t.request({ method: 'GET', url: `/public/v1/posts/${post!.postIds[0]}`, key: tenant.key });
    expect(read.json()).toMatchObject({
      content: '<p>Hello, world</p>',
      tags: ['a', 'b'],
      value: [{}, { content: '<p>A comment</p>', delay: 5 }],
    });

    const again = await importPosts(tenant, { csv }, { 'idempotency-key': 'import-1' });
    expect(again.json().id).toBe(result.id);
    expect(await calendarCount(tenant)).toBe(2);
    const reused = await importPosts(tenant, { csv: csv.replace('Hello', 'Bye') }, { 'idempotency-key': 'import-1' });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().code).toBe('idempotency_key_reused');

    const broken = await importPosts(tenant, { csv: 'channels,date\n"unclosed,x' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().code).toBe('invalid_csv');
  });

  it('takes a CSV file as multipart/form-data, with dryRun and partial as fields; refuses a file too large or a stray part', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const csv = `channels,date,content\n${tenant.channelId},2026-06-01T09:00:00Z,From a file\nnope,2026-06-02T09:00:00Z,Unknown\n`;
    const send = (body: ReturnType<typeof multipart>, headers: Record<string, string> = {}) =>
      t.request({
        method: 'POST',
        url: '/public/v1/imports',
        key: tenant.key,
        payload: body.payload,
        headers: { ...body.headers, ...headers },
      });
    const file = { name: 'file', filename: 'posts.csv', contentType: 'text/csv', data: csv };

    const dry = await send(multipart([{ name: 'dryRun', data: 'true' }, file]));
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json()).toMatchObject({ status: 'invalid', dryRun: true, total: 2, created: 0, errors: [{ row: 2, field: 'channels' }] });
    expect(await calendarCount(tenant)).toBe(0);

    // Fields after the file count too; an Idempotency-Key applies as with JSON.
    const partial = await send(multipart([file, { name: 'partial', data: 'true' }]), { 'idempotency-key': 'upload-1' });
    expect(partial.json()).toMatchObject({ status: 'invalid', partial: true, created: 1 });
    const again = await send(multipart([file, { name: 'partial', data: 'true' }]), { 'idempotency-key': 'upload-1' });
    expect(again.json().id).toBe(partial.json().id);
    expect(await calendarCount(tenant)).toBe(1);

    const refused = async (body: ReturnType<typeof multipart>, status: number, code: string) => {
      const res = await send(body);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json()).toMatchObject({ code, msg: expect.any(String) });
    };
    await refused(multipart([{ name: 'dryRun', data: 'true' }]), 400, 'file_missing');
    await refused(multipart([{ ...file, name: 'upload' }]), 400, 'unexpected_part');
    await refused(multipart([file, { name: 'channel', data: 'x' }]), 400, 'unexpected_part');
    await refused(multipart([file, { name: 'dryRun', data: 'maybe' }]), 400, 'invalid_field');
    await refused(multipart([{ ...file, data: 'channels,date\n"unclosed,x' }]), 400, 'invalid_csv');
    const huge = multipart([{ ...file, data: `channels,date,content\nx,y,${'a'.repeat(21 * 1024 * 1024)}\n` }]);
    await refused(huge, 413, 'too_large');
    // Without a declared length, the file stops being read at the limit.
    const streamed = await t.request({
      method: 'POST',
      url: '/public/v1/imports',
      key: tenant.key,
      payload: Readable.from([huge.payload]),
      headers: huge.headers,
    });
    expect(streamed.statusCode, streamed.body).toBe(413);
    expect(streamed.json()).toMatchObject({ code: 'too_large' });
    expect(await calendarCount(tenant)).toBe(1);
  });

  it('fetches media given by URL into the library through the guarded client, once per URL; a URL that fails is a media error of its row', async () => {
    const image = png(8, 8);
    let fetches = 0;
    const server = http.createServer((req, res) => {
      fetches += 1;
      if (req.url === '/picture.png') res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length }).end(image);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const loopback = await createTestApp({ clock, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
      const tenant = await webhookTenant(loopback, HOOK);
      const row = (n: number, media: string) => ({
        channels: [tenant.channelId],
        date: `2026-06-0${n}T09:00:00Z`,
        content: `Row ${n}`,
        media,
      });
      const rows = [row(1, `${base}/picture.png`), row(2, `${base}/picture.png`), row(3, `${base}/missing.png`)];
      const send = (body: object) => loopback.request({ method: 'POST', url: '/public/v1/imports', key: tenant.key, payload: body });

      const dry = (await send({ rows, dryRun: true })).json() as Import;
      expect(dry).toMatchObject({ status: 'invalid', created: 0 });
      expect(dry.errors).toEqual([{ row: 3, field: 'media', message: expect.stringContaining('answered 404') }]);
      expect(fetches).toBe(2);

      const done = (await send({ rows, partial: true })).json() as Import;
      expect(done).toMatchObject({ status: 'invalid', created: 2 });
      const library = (await loopback.request({ method: 'GET', url: '/public/v1/media?pageSize=10', key: tenant.key })).json() as {
        results: Array<{ path: string }>;
      };
      // The same file, fetched in the dry run and again by the import, is one file of the library.
      expect(library.results).toHaveLength(1);
      for (const created of done.posts) {
        const post = (await loopback.request({ method: 'GET', url: `/public/v1/posts/${created.postIds[0]}`, key: tenant.key })).json();
        expect(post.value[0].image).toEqual([expect.objectContaining({ path: library.results[0]!.path })]);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a large import (5,000 rows) runs in the background: other requests are answered meanwhile, and progress is readable by id', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const rows = Array.from({ length: LARGE }, (_, i) => ({
      channels: tenant.channelId,
      date: new Date(Date.parse('2026-06-01T00:00:00Z') + i * 60_000).toISOString(),
      content: `Post ${i + 1}`,
    }));
    const started = await importPosts(tenant, { rows, dryRun: true });
    expect(started.statusCode, started.body).toBe(200);
    const id = (started.json() as Import).id;
    expect(started.json()).toMatchObject({ status: 'running', total: LARGE });
    // While it runs, another request is answered.
    const status = await t.request({ method: 'GET', url: `/public/v1/imports/${id}`, key: tenant.key });
    expect(status.statusCode).toBe(200);
    expect((status.json() as Import).status).toBe('running');
    // Progress read through the service between turns of the event loop (the API's rate limit would refuse a tight poll).
    const access = await accessOf(t, tenant);
    let read: Import;
    for (;;) {
      read = (await t.services.imports.get(access, id)) as Import;
      if (read.status !== 'running') break;
      expect(read.validated).toBeLessThanOrEqual(LARGE);
      await setImmediate();
    }
    expect(read).toMatchObject({ status: 'done', validated: LARGE, errors: [] });
    expect((await t.request({ method: 'GET', url: `/public/v1/imports/${id}`, key: tenant.key })).json()).toMatchObject({ status: 'done' });
    const other = await createTenant(t);
    expect((await t.request({ method: 'GET', url: `/public/v1/imports/${id}`, key: other.key })).statusCode).toBe(404);
  }, 300_000);
});

describe('a background import across a restart', () => {
  // Over three batches (about 200 posts each): a stop after the first leaves rows to go on with.
  const RESTART_ROWS = 650;
  const rowsFor = (channelId: string) =>
    Array.from({ length: RESTART_ROWS }, (_, i) => ({
      channels: channelId,
      date: new Date(Date.parse('2026-07-01T00:00:00Z') + i * 60_000).toISOString(),
      content: `Restart ${i + 1}`,
    }));

  /** Starts a real import of `RESTART_ROWS` rows and stops the runtime's imports once some posts were created and recorded. */
  async function stoppedMidway(app: TestApp, tenant: Tenant & { channelId: string }): Promise<string> {
    const started = await app.request({
      method: 'POST',
      url: '/public/v1/imports',
      key: tenant.key,
      payload: { rows: rowsFor(tenant.channelId) },
    });
    expect(started.json()).toMatchObject({ status: 'running', total: RESTART_ROWS });
    const id = (started.json() as Import).id;
    const access = await accessOf(app, tenant);
    while ((await app.services.imports.get(access, id)).created < 50) await setImmediate();
    // What closing the runtime does first: the import stops at its next row.
    await app.services.imports.stop();
    const stopped = await app.services.imports.get(access, id);
    expect(stopped.status).toBe('running');
    expect(stopped.created).toBeLessThan(RESTART_ROWS);
    return id;
  }

  async function finished(app: TestApp, tenant: Tenant, id: string): Promise<Import> {
    await app.services.imports.idle();
    const read = (await app.request({ method: 'GET', url: `/public/v1/imports/${id}`, key: tenant.key })).json() as Import;
    expect(read).toMatchObject({ status: 'done', validated: RESTART_ROWS, created: RESTART_ROWS, errors: [] });
    // Every row once, in order, each with its own post; the calendar holds exactly those.
    expect(read.posts.map((p) => p.row)).toEqual(Array.from({ length: RESTART_ROWS }, (_, i) => i + 1));
    expect(new Set(read.posts.flatMap((p) => p.postIds)).size).toBe(RESTART_ROWS);
    expect(await calendarCount(tenant, app)).toBe(RESTART_ROWS);
    return read;
  }

  it('a runtime started on the same database goes on where a stopped one left off, creating every row once', async () => {
    const restartClock = new ManualClock('2026-05-01T12:00:00.000Z');
    const first = await createTestApp({ clock: restartClock });
    const tenant = await webhookTenant(first, HOOK);
    const id = await stoppedMidway(first, tenant);
    const second = await createTestApp({ clock: restartClock, reopen: first });
    expect(await second.services.imports.resume()).toBe(1);
    await finished(second, tenant, id);
    // Nothing left to take over.
    expect(await second.services.imports.resume()).toBe(0);
  }, 120_000);

  it('a resumed import checks its credential again: a key revoked, a member removed or a channel no longer allowed stops it, creating nothing more', async () => {
    const cases: Array<[string, (app: TestApp, tenant: Tenant & { channelId: string }) => Promise<unknown>, RegExp]> = [
      ['revoked', (app, tenant) => app.services.apiKeys.revoke(tenant.keyId), /revoked/],
      ['removed', (app, tenant) => app.services.workspaces.removeMember(tenant.workspaceId, tenant.userId), /member/],
      [
        'narrowed',
        (app, tenant) =>
          app.runtime.db
            .updateTable('api_keys')
            .set({ channel_ids: JSON.stringify(['another-channel']) })
            .where('id', '=', tenant.keyId)
            .execute(),
        /no longer post to channel/,
      ],
    ];
    for (const [name, change, reason] of cases) {
      const restartClock = new ManualClock('2026-05-01T12:00:00.000Z');
      const first = await createTestApp({ clock: restartClock });
      const tenant = await webhookTenant(first, HOOK);
      // Another owner of the workspace reads the outcome.
      const reader = await createTenant(first, { workspaceId: tenant.workspaceId });
      const id = await stoppedMidway(first, tenant);
      const before = await first.services.imports.get(await accessOf(first, reader), id);
      await change(first, tenant);
      const second = await createTestApp({ clock: restartClock, reopen: first });
      expect(await second.services.imports.resume(), name).toBe(1);
      await second.services.imports.idle();
      const read = (await second.request({ method: 'GET', url: `/public/v1/imports/${id}`, key: reader.key })).json() as Import;
      expect(read, name).toMatchObject({ status: 'stopped', created: before.created });
      expect(read.errors.at(-1), name).toMatchObject({ row: 0, field: 'import', message: expect.stringMatching(reason) });
      expect(await calendarCount(reader, second), name).toBe(before.created);
      // Stopped for good: nothing left to take over.
      expect(await second.services.imports.resume(), name).toBe(0);
    }
  }, 300_000);

  it("a crashed process's import is taken over once its lease has run out, not before", async () => {
    const restartClock = new ManualClock('2026-05-01T12:00:00.000Z');
    const first = await createTestApp({ clock: restartClock });
    const tenant = await webhookTenant(first, HOOK);
    const id = await stoppedMidway(first, tenant);
    // A crash frees nothing: the lease of the process that died stays until it runs out.
    await first.runtime.db
      .updateTable('post_imports')
      .set({ runner: 'crashed', lease_until: new Date(restartClock.now().getTime() + IMPORT_LEASE_MS).toISOString() })
      .where('id', '=', id)
      .execute();
    const second = await createTestApp({ clock: restartClock, reopen: first });
    expect(await second.services.imports.resume()).toBe(0);
    restartClock.advance(IMPORT_LEASE_MS + 1000);
    expect(await second.services.imports.resume()).toBe(1);
    await finished(second, tenant, id);
  }, 120_000);
});
