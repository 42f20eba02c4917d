import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { UPLOAD_LINK_MAX_FILES } from '../../src/media/upload-links.service.ts';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { issueOAuthToken, TEST_REDIRECT_URI } from '../helpers/oauth.ts';
import { fileBody, gif, jpeg, mp4, multipart, png } from '../helpers/media-files.ts';
import { storedObjects } from '../helpers/stored-objects.ts';

const clock = new ManualClock('2026-06-10T08:00:00.000Z');
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});

const TWO_HOURS = 2 * 3600_000;
let colour = 0;
function freshPng(): Buffer {
  colour += 1;
  return png(3, 3, [colour % 256, 90, Math.floor(colour / 256) % 256]);
}

/** A link made with the tenant's API key, or with `credential` (e.g. `Bearer svco_…`). */
async function createLink(
  tenant: Tenant,
  app: TestApp = t,
  credential: string = tenant.key,
): Promise<{ id: string; url: string; expiresAt: string; token: string; page: string }> {
  const res = await app.request({ method: 'POST', url: '/public/v1/upload-link', key: credential });
  expect(res.statusCode, res.body).toBe(201);
  const link = res.json();
  const page = new URL(link.url).pathname;
  return { ...link, page, token: page.split('/').pop()! };
}

function pageUpload(link: { page: string }, data: Buffer, filename: string, app: TestApp = t) {
  return app.request({ method: 'POST', url: `${link.page}/files`, ...fileBody(data, filename) });
}

function contents(tenant: Tenant, id: string) {
  return t.request({ method: 'GET', url: `/public/v1/upload-link/${id}`, key: tenant.key });
}

/** The link's page and uploads answer "no longer active" (410); after `restore`, if given, it takes files again. */
async function expectInactive(link: { page: string }, restore: (() => Promise<unknown>) | null): Promise<void> {
  const page = await t.request({ method: 'GET', url: link.page });
  expect(page.statusCode).toBe(410);
  expect(page.body).toContain('This link is no longer active');
  const res = await pageUpload(link, freshPng(), 'refused.png');
  expect(res.statusCode).toBe(410);
  expect(res.json().code).toBe('link_inactive');
  if (restore) {
    await restore();
    expect((await pageUpload(link, freshPng(), 'back.png')).statusCode).toBe(200);
  }
}

async function storedObjectCount(): Promise<number> {
  return (await storedObjects(t.config)).objects.length;
}

describe('POST /public/v1/upload-link', () => {
  it('answers 201 with the id, a page URL under BASE_URL, and an expiry two hours ahead', async () => {
    const tenant = await createTenant(t);
    const res = await t.request({ method: 'POST', url: '/public/v1/upload-link', key: tenant.key });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'id', 'url']);
    expect(body.url).toMatch(/^http:\/\/herald\.test\/u\/[0-9A-Za-z]{43}$/);
    expect(body.expiresAt).toBe(new Date(clock.now().getTime() + TWO_HOURS).toISOString());
  });

  it('stores only a hash of the secret, and every link has its own', async () => {
    const tenant = await createTenant(t);
    const a = await createLink(tenant);
    const b = await createLink(tenant);
    expect(a.token).not.toBe(b.token);
    const row = await t.runtime.db.selectFrom('upload_links').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(a.token);
    expect(row.token_hash).toBe(createHash('sha256').update(a.token).digest('hex'));
  });

  runAuthMatrix(() => t, { method: 'POST', url: () => '/public/v1/upload-link', scope: 'media:write', okStatus: 201 });
});

describe('GET /public/v1/upload-link/:id', () => {
  it('is empty until the first file, then ready with the files oldest first, under the names people gave them', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    expect((await contents(tenant, link.id)).json()).toEqual({ id: link.id, status: 'empty', count: 0, files: [] });

    clock.advance(1000);
    const first = (await pageUpload(link, jpeg(8, 8, 30), 'Beach.JPG')).json();
    clock.advance(1000);
    const second = (await pageUpload(link, mp4(320, 240), 'clip.mp4')).json();
    const res = await contents(tenant, link.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: link.id,
      status: 'ready',
      count: 2,
      files: [
        { id: first.id, name: 'Beach.JPG', path: first.path, type: 'image' },
        { id: second.id, name: 'clip.mp4', path: second.path, type: 'video' },
      ],
    });
  });

  it("answers another workspace's link like an unknown one: empty, not an error", async () => {
    const mine = await createTenant(t);
    const theirs = await createTenant(t);
    const link = await createLink(theirs);
    await pageUpload(link, freshPng(), 'theirs.png');
    expect((await contents(theirs, link.id)).json().count).toBe(1);
    const foreign = await contents(mine, link.id);
    expect(foreign.statusCode).toBe(200);
    expect(foreign.json()).toEqual({ id: link.id, status: 'empty', count: 0, files: [] });
    expect((await contents(mine, 'no-such-link')).json()).toEqual({ id: 'no-such-link', status: 'empty', count: 0, files: [] });
  });

  it('keeps answering after the link expired', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    await pageUpload(link, freshPng(), 'a.png');
    clock.advance(TWO_HOURS + 1);
    expect((await contents(tenant, link.id)).json()).toMatchObject({ status: 'ready', count: 1 });
  });

  runAuthMatrix(() => t, { method: 'GET', url: () => '/public/v1/upload-link/any-id', scope: 'media:write' });
});

describe('the upload page', () => {
  it('serves the page for an active link, locked down: strict CSP, no caching, no referrer, not indexed', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    const res = await t.request({ method: 'GET', url: link.page });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers).toMatchObject({
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex, nofollow',
      'x-frame-options': 'DENY',
    });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.body).toContain('<h1>Send files</h1>');
    expect(res.body).toContain(`"uploadUrl":"/u/${link.token}/files"`);
    expect(res.body).toContain('multiple accept="image/jpeg,image/png');
  });

  it('answers a link that does not exist with a plain "not valid" page (404)', async () => {
    for (const token of ['x'.repeat(43), 'short', 'A'.repeat(43)]) {
      const res = await t.request({ method: 'GET', url: `/u/${token}` });
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('This link is not valid');
      expect(res.body).not.toContain('<script>');
    }
  });

  it('works until two hours have passed, then shows the expired page and refuses uploads (410)', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    clock.advance(TWO_HOURS - 1);
    expect((await t.request({ method: 'GET', url: link.page })).statusCode).toBe(200);
    expect((await pageUpload(link, freshPng(), 'in-time.png')).statusCode).toBe(200);
    clock.advance(1);
    const page = await t.request({ method: 'GET', url: link.page });
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('<h1>This link has expired</h1>');
    expect(page.body).not.toContain('<script>');
    const late = await pageUpload(link, freshPng(), 'late.png');
    expect(late.statusCode).toBe(410);
    expect(late.json()).toEqual({ code: 'link_expired', msg: 'This upload link has expired; ask for a new one.' });
    expect((await t.request({ method: 'GET', url: `${link.page}/files` })).statusCode).toBe(410);
    expect((await contents(tenant, link.id)).json().count).toBe(1);
  });

  describe('stops working once its maker can no longer upload', () => {
    const cases: Array<[string, (tenant: Tenant) => Promise<unknown>, ((tenant: Tenant) => Promise<unknown>) | null]> = [
      ['the key that made it is revoked', (x) => t.services.apiKeys.revoke(x.keyId), null],
      [
        "the workspace's plan loses API access",
        (x) => t.services.workspaces.setPlan(x.workspaceId, { apiAccess: false }),
        (x) => t.services.workspaces.setPlan(x.workspaceId, { apiAccess: true }),
      ],
      [
        'its owner is removed from the workspace',
        (x) => t.services.workspaces.removeMember(x.workspaceId, x.userId),
        (x) => t.services.workspaces.addMember(x.workspaceId, x.userId, 'editor'),
      ],
      [
        'its owner is demoted to viewer',
        (x) => t.services.workspaces.setRole(x.workspaceId, x.userId, 'viewer'),
        (x) => t.services.workspaces.setRole(x.workspaceId, x.userId, 'contributor'),
      ],
    ];
    it.each(cases)('%s', async (_label, revoke, restore) => {
      const tenant = await createTenant(t);
      const link = await createLink(tenant);
      await revoke(tenant);
      await expectInactive(link, restore && (() => restore(tenant)));
    });
  });

  describe('a link made with an OAuth access token', () => {
    async function oauthLink(options: { scopes?: string[]; clientId?: string } = {}) {
      const tenant = await createTenant(t);
      const { accessToken } = await issueOAuthToken(t, {
        ...tenant,
        scopes: options.scopes ?? ['media:write'],
        ...(options.clientId && { clientId: options.clientId }),
      });
      const link = await createLink(tenant, t, `Bearer ${accessToken}`);
      return { tenant, link, accessToken };
    }

    it('is recorded with the grant and the user, not a key, and takes files', async () => {
      const { tenant, link } = await oauthLink();
      const row = await t.runtime.db.selectFrom('upload_links').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow();
      const [allowed] = await t.services.oauth.allowedApps(tenant.userId);
      expect(row).toMatchObject({ created_by_key_id: null, created_by_grant_id: allowed!.grantId, created_by_user_id: tenant.userId });
      const res = await pageUpload(link, freshPng(), 'from-app.png');
      expect(res.statusCode, res.body).toBe(200);
      expect((await contents(tenant, link.id)).json()).toMatchObject({ status: 'ready', files: [{ name: 'from-app.png' }] });
    });

    it('a token without media:write cannot make one', async () => {
      const tenant = await createTenant(t);
      const { accessToken } = await issueOAuthToken(t, { ...tenant, scopes: ['posts:read'] });
      const res = await t.request({ method: 'POST', url: '/public/v1/upload-link', key: `Bearer ${accessToken}` });
      expect(res.statusCode).toBe(403);
      expect(res.json().scope).toBe('media:write');
    });

    const cases: Array<
      [string, (x: { tenant: Tenant; owner: Tenant; clientId: string }) => Promise<unknown>, ((tenant: Tenant) => Promise<unknown>) | null]
    > = [
      [
        "the user revokes the app's access",
        async ({ tenant }) => {
          const [allowed] = await t.services.oauth.allowedApps(tenant.userId);
          expect(await t.services.oauth.revokeGrant(tenant.userId, allowed!.grantId)).toBe(true);
        },
        null,
      ],
      ['the app is deleted', ({ owner, clientId }) => t.services.oauth.deleteApp(owner.userId, clientId), null],
      [
        "the workspace's plan loses API access",
        ({ tenant }) => t.services.workspaces.setPlan(tenant.workspaceId, { apiAccess: false }),
        (x) => t.services.workspaces.setPlan(x.workspaceId, { apiAccess: true }),
      ],
      [
        'its user is removed from the workspace',
        ({ tenant }) => t.services.workspaces.removeMember(tenant.workspaceId, tenant.userId),
        (x) => t.services.workspaces.addMember(x.workspaceId, x.userId, 'editor'),
      ],
      [
        'its user is demoted to viewer',
        ({ tenant }) => t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'viewer'),
        (x) => t.services.workspaces.setRole(x.workspaceId, x.userId, 'contributor'),
      ],
    ];
    it.each(cases)('stops working once %s', async (_label, revoke, restore) => {
      const owner = await createTenant(t);
      // An app of a user of its own, so deleting it touches no other test's tokens.
      const { app } = await t.services.oauth.registerApp(owner.userId, {
        name: 'Uploader',
        redirectUris: [TEST_REDIRECT_URI],
        confidential: false,
      });
      const { tenant, link } = await oauthLink({ clientId: app.clientId });
      expect((await pageUpload(link, freshPng(), 'before.png')).statusCode).toBe(200);
      await revoke({ tenant, owner, clientId: app.clientId });
      await expectInactive(link, restore && (() => restore(tenant)));
    });
  });

  describe('uploads through the page', () => {
    it("adds the file to the link's workspace, tagged with the link", async () => {
      const tenant = await createTenant(t);
      const link = await createLink(tenant);
      const res = await pageUpload(link, gif(5, 5), 'party.gif');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: expect.any(String),
        name: 'party.gif',
        path: expect.stringMatching(/^http:\/\/herald\.test\/media\/.+\.gif$/),
        type: 'image',
      });
      const library = (await t.request({ method: 'GET', url: '/public/v1/media', key: tenant.key })).json();
      expect(library.results).toEqual([
        expect.objectContaining({ id: res.json().id, name: 'party.gif', uploadLinkId: link.id, width: 5, height: 5 }),
      ]);
    });

    it("content already in the library answers with that file, listed under the person's name, with nothing new stored", async () => {
      const tenant = await createTenant(t);
      const data = freshPng();
      const existing = (
        await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(data, 'library-name.png') })
      ).json();
      const link = await createLink(tenant);
      const before = await storedObjectCount();
      const res = await pageUpload(link, data, 'their-name.png');
      expect(res.json()).toMatchObject({ id: existing.id, path: existing.path, name: 'their-name.png' });
      expect(await storedObjectCount()).toBe(before);
      expect((await contents(tenant, link.id)).json().files).toEqual([
        { id: existing.id, name: 'their-name.png', path: existing.path, type: 'image' },
      ]);
      const library = (await t.request({ method: 'GET', url: '/public/v1/media', key: tenant.key })).json();
      expect(library.results).toEqual([expect.objectContaining({ id: existing.id, name: 'library-name.png', uploadLinkId: null })]);
    });

    it('the same file twice through one link is one entry', async () => {
      const tenant = await createTenant(t);
      const link = await createLink(tenant);
      const data = freshPng();
      await pageUpload(link, data, 'one.png');
      await pageUpload(link, data, 'one-again.png');
      expect((await contents(tenant, link.id)).json()).toMatchObject({ count: 1, files: [{ name: 'one.png' }] });
    });

    it('refuses what /upload refuses, with the same messages, and keeps nothing', async () => {
      const tenant = await createTenant(t);
      const link = await createLink(tenant);
      const before = await storedObjectCount();
      const bad = [
        [fileBody(Buffer.from('%PDF-1.4 not a picture'), 'doc.pdf'), 400, 'unsupported_type'],
        [fileBody(Buffer.alloc(0), 'nothing.png'), 400, 'empty_file'],
        [fileBody(png(2, 2, [1, 1, 1], 10 * 1024 * 1024), 'huge.png'), 413, 'too_large'],
        [
          multipart([
            { name: 'file', filename: 'a.png', data: freshPng() },
            { name: 'file', filename: 'b.png', data: freshPng() },
          ]),
          400,
          'too_many_parts',
        ],
      ] as const;
      for (const [body, status, code] of bad) {
        const res = await t.request({ method: 'POST', url: `${link.page}/files`, ...body });
        expect(res.statusCode, code).toBe(status);
        expect(res.json().code).toBe(code);
      }
      expect(await storedObjectCount()).toBe(before);
      expect((await contents(tenant, link.id)).json().count).toBe(0);
    });

    it('lists only what came through this link: the rest of the library stays out of sight', async () => {
      const tenant = await createTenant(t);
      await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(freshPng(), 'private-plan.png') });
      const link = await createLink(tenant);
      const other = await createLink(tenant);
      await pageUpload(other, freshPng(), 'other-link.png');
      await pageUpload(link, freshPng(), 'mine.png');
      const res = await t.request({ method: 'GET', url: `${link.page}/files` });
      expect(res.statusCode).toBe(200);
      expect(res.json().files.map((f: { name: string }) => f.name)).toEqual(['mine.png']);
    });

    it('the secret is no API credential: it cannot read the library, create links or post', async () => {
      const tenant = await createTenant(t);
      const link = await createLink(tenant);
      for (const [method, url] of [
        ['GET', '/public/v1/media'],
        ['POST', '/public/v1/upload-link'],
        ['POST', '/public/v1/posts'],
        ['GET', `/public/v1/upload-link/${link.id}`],
      ] as const) {
        for (const key of [link.token, `Bearer ${link.token}`, link.url]) {
          expect((await t.request({ method, url, key, payload: {} })).statusCode, `${method} ${url}`).toBe(401);
        }
      }
    });

    it(`refuses more than ${UPLOAD_LINK_MAX_FILES} files through one link`, async () => {
      const tenant = await createTenant(t);
      const link = await createLink(tenant);
      const now = clock.now().toISOString();
      const rows = Array.from({ length: UPLOAD_LINK_MAX_FILES }, (_, i) => ({
        id: `bulk-${link.id}-${i}`,
        workspace_id: tenant.workspaceId,
        storage_key: `zz/bulk${link.id.replace(/-/g, '')}${i}.png`,
        name: `${i}.png`,
        type: 'image',
        mime_type: 'image/png',
        size: 10,
        sha256: `${link.id}-${i}`,
        width: null,
        height: null,
        upload_link_id: link.id,
        created_at: now,
      }));
      for (let i = 0; i < rows.length; i += 100) {
        const batch = rows.slice(i, i + 100);
        await t.runtime.db.insertInto('media').values(batch).execute();
        await t.runtime.db
          .insertInto('upload_link_files')
          .values(batch.map((r) => ({ upload_link_id: link.id, media_id: r.id, name: r.name, created_at: now })))
          .execute();
      }
      await t.runtime.db
        .updateTable('upload_links')
        .set({ files_used: UPLOAD_LINK_MAX_FILES, bytes_used: UPLOAD_LINK_MAX_FILES * 10 })
        .where('id', '=', link.id)
        .execute();
      const res = await pageUpload(link, freshPng(), 'one-too-many.png');
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        code: 'link_full',
        msg: `This link has taken the most files it accepts (${UPLOAD_LINK_MAX_FILES}). Ask for a new link.`,
      });
    });
  });
});

describe('rate limit of uploads through a page', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /u/:token/files': 2 }) } });
  });

  it('counts uploads per client address and answers 429 with Retry-After past the quota', async () => {
    const tenant = await createTenant(limited);
    const link = await createLink(tenant, limited);
    expect((await pageUpload(link, freshPng(), '1.png', limited)).statusCode).toBe(200);
    expect((await pageUpload(link, freshPng(), '2.png', limited)).statusCode).toBe(200);
    const third = await pageUpload(link, freshPng(), '3.png', limited);
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toMatch(/^\d+$/);
    expect(third.json().code).toBe('rate_limited');
  });
});
