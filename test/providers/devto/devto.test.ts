// DEV / Forem end to end through the HTTP stack and the engine, against a local server speaking
// the Forem API v1: connecting with an API key (any community by its address), publishing an
// article as Markdown with its cover image by Herald's public media URL, the settings and comment
// checks of GET /posts/:id/missing, the organization tool, Forem's refusals mapped onto the
// engine's failure kinds, and the articles' numbers for analytics.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { devtoMetrics } from '../../../src/providers/devto/devto.metrics.ts';
import { devtoProvider } from '../../../src/providers/devto/devto.provider.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type Tenant, type TestApp } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, getPost } from '../../helpers/posts.ts';
import { NO_PLATFORM_APPS, providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { FakeForem, foremError } from './fake-forem.ts';

let t: TestApp;
let forem: FakeForem;
beforeAll(async () => {
  forem = await new FakeForem().start();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
beforeEach(() => {
  forem.reset();
  forem.now = () => Date.now();
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await forem?.stop();
});

const connect = (tenant: Tenant, body: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: { provider: 'devto', ...body } });

async function connected(tenant: Tenant, userId = 1): Promise<string> {
  const res = await connect(tenant, { apiKey: forem.apiKey(userId), baseUrl: forem.url });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { integration: { id: string } }).integration.id;
}

function article(
  channelId: string,
  settings: Record<string, unknown>,
  value: Array<Record<string, unknown>> = [{ content: '<p>Hello</p>' }],
) {
  return {
    type: 'now',
    date: new Date().toISOString(),
    posts: [{ integration: { id: channelId }, value, settings: { __type: 'devto', ...settings } }],
  };
}

async function publishNow(tenant: Tenant, channelId: string, settings: Record<string, unknown>, value?: Array<Record<string, unknown>>) {
  const [created] = await createOk(t, tenant, article(channelId, settings, value));
  await t.settle();
  return getPost(t, tenant, created!.postId);
}

describe('the Markdown DEV gets', () => {
  it("converts the stored HTML to Markdown, escaping the post's own Markdown characters", () => {
    expect(
      devtoProvider.toText(
        '<h2>Notes</h2><p><strong>Big</strong> 2*3 <em>and</em> <a href="https://e.com/x">the notes</a> <code>a_b</code></p><ul><li>one_two</li></ul><blockquote><p>quoted</p></blockquote><pre><code>let x = 1;</code></pre>',
      ),
    ).toBe('## Notes\n\n**Big** 2\\*3 _and_ [the notes](https://e.com/x) `a_b`\n\n- one\\_two\n\n> quoted\n\n```\nlet x = 1;\n```');
  });
});

describe('connecting a DEV or Forem account', () => {
  it('checks the API key live (with a user agent), names the channel after the account, and reconnects the same account', async () => {
    const tenant = await createTenant(t);
    const key = forem.apiKey(1);
    const res = await connect(tenant, { apiKey: key, baseUrl: forem.url });
    expect(res.statusCode, res.body).toBe(200);
    const { integration } = res.json() as { integration: { id: string; name: string; profile: string; picture: string } };
    expect(integration).toMatchObject({ name: 'Ana Writer', profile: `ana_writes@${forem.host}`, picture: `${forem.url}/avatars/1.png` });
    const me = forem.received.findLast((c) => c.path === '/api/users/me')!;
    expect(me.headers).toMatchObject({ 'api-key': key, accept: 'application/vnd.forem.api-v1+json' });
    expect(me.headers['user-agent']).toContain('Herald');
    const again = await connect(tenant, { apiKey: forem.apiKey(1), baseUrl: `${forem.url}/` });
    expect(again.json()).toMatchObject({ integration: { id: integration.id }, reconnected: true });
  });

  it('refuses a wrong key and a community not on https, storing nothing; dev.to is the default community', async () => {
    const tenant = await createTenant(t);
    const wrong = await connect(tenant, { apiKey: 'not-a-real-key-123', baseUrl: forem.url });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'platform_refused' });
    expect(wrong.json().msg).toContain('unauthorized');
    const plain = await connect(tenant, { apiKey: forem.apiKey(1), baseUrl: 'http://forem.example.com' });
    expect(plain.statusCode).toBe(400);
    expect(plain.json()).toMatchObject({ code: 'invalid_config' });
    expect(await t.services.channels.list(tenant.workspaceId)).toEqual([]);
    expect(devtoProvider.configSchema.parse({ apiKey: 'abcdefgh12' })).toEqual({ apiKey: 'abcdefgh12' });
  });
});

describe('publishing to DEV', () => {
  it("publishes the article as Markdown with its settings and the image as cover (Herald's public media URL); the release is the article id and URL", async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    const uploaded = await t.request({
      method: 'POST',
      url: '/public/v1/upload',
      key: tenant.key,
      ...fileBody(png(40, 20, [200, 100, 20]), 'cover.png', 'image/png'),
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const image = uploaded.json() as { id: string; path: string };
    const published = await publishNow(
      tenant,
      channelId,
      {
        title: 'Launch day',
        tags: ['WebDev', 'launch'],
        canonicalUrl: 'https://example.com/launch',
        series: 'Shipping',
        description: 'What shipped',
        published: false,
        organizationId: 77,
      },
      [{ content: '<p>Launch <strong>day</strong>: <a href="https://example.com/notes">the notes</a></p>', image: [image] }],
    );
    expect(published.value[0]!.state, JSON.stringify(published)).toBe('PUBLISHED');
    const sent = forem.articles.find((a) => String(a.id) === published.releaseId)!;
    expect(published.releaseURL).toBe(sent.url);
    expect(sent).toMatchObject({
      title: 'Launch day',
      body_markdown: 'Launch **day**: [the notes](https://example.com/notes)',
      published: false,
      tags: ['webdev', 'launch'],
      canonical_url: 'https://example.com/launch',
      series: 'Shipping',
      description: 'What shipped',
      organization_id: 77,
      main_image: new URL(image.path, `${TEST_BASE_URL}/`).toString(),
    });
    expect(sent.main_image!.startsWith(TEST_BASE_URL)).toBe(true);
  });

  it("GET /posts/:id/missing reports the title, Forem's tag rules and comment parts; a private BASE_URL blocks a cover image", async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    const tooMany = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: { ...article(channelId, { title: 'x', tags: ['a', 'b', 'c', 'd', 'e'] }), type: 'draft' },
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().msg).toContain('settings.tags: at most 4 tags');
    const [created] = await createOk(t, tenant, {
      ...article(channelId, { tags: ['webdev'] }, [{ content: '<p>Body</p>' }, { content: '<p>A comment</p>' }]),
      type: 'draft',
    });
    const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
    const missing = (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
    expect(missing.map((m) => m.field).sort()).toEqual(['settings.title', 'value[1]']);
    expect(missing.find((m) => m.field === 'value[1]')!.reason).toContain('cannot write comments');
    expect(missing.find((m) => m.field === 'settings.title')!.reason).toContain('needs a title');

    const hyphen = devtoProvider.settingsSchema.safeParse({ title: 'x', tags: ['java-script'] });
    expect(hyphen.success).toBe(false);
    const local = { ...NO_PLATFORM_APPS, baseUrl: 'http://localhost:3000' };
    const cover = { id: 'm', url: '/uploads/m.png', name: 'm.png', mimeType: 'image/png', size: 10, width: 1, height: 1 };
    expect(devtoProvider.validate({ text: 'x', media: [cover], settings: {}, part: 0, config: {}, platformApps: local })).toEqual([
      { field: 'value[0].image', reason: expect.stringContaining('BASE_URL (http://localhost:3000) is not a public address') },
    ]);
  });

  it('a revoked API key ends as ERROR auth and the channel needs reconnecting', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant, 2);
    forem.revokeKeys(2);
    const refused = await publishNow(tenant, channelId, { title: 'After revocation' });
    expect(refused.value[0]!.state).toBe('ERROR');
    expect(refused.errorKind).toBe('auth');
    const [channel] = (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Array<
      Record<string, unknown>
    >;
    expect(channel).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
  });

  it('a rate limit (429 with Retry-After) waits and retries later; the same title within five minutes is refused in words', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    forem.on((call) =>
      call.path === '/api/articles'
        ? { ...foremError(429, 'Rate limit reached, try again in 30 seconds'), headers: { 'retry-after': '30' } }
        : undefined,
    );
    const before = Date.now();
    const [limited] = await createOk(t, tenant, article(channelId, { title: 'Later' }));
    await t.settle();
    const waiting = await getPost(t, tenant, limited!.postId);
    expect(waiting.value[0]!.state).not.toBe('PUBLISHED');
    expect(waiting.errorKind).toBeNull();
    const { next_run_at: nextRun } = await t.runtime.db
      .selectFrom('posts')
      .select('next_run_at')
      .where('id', '=', limited!.postId)
      .executeTakeFirstOrThrow();
    expect(Date.parse(nextRun!)).toBeGreaterThanOrEqual(before + 30_000 - 1000);
    await t.request({ method: 'DELETE', url: `/public/v1/posts/${limited!.postId}`, key: tenant.key });
    forem.reset();

    expect((await publishNow(tenant, channelId, { title: 'Weekly notes' })).value[0]!.state).toBe('PUBLISHED');
    const twice = await publishNow(tenant, channelId, { title: 'Weekly notes' });
    expect(twice.value[0]!.state).toBe('ERROR');
    expect(twice.errorKind).toBe('rejected');
    expect(twice.error).toContain('same title less than five minutes ago');
    const later = Date.now() + 6 * 60_000;
    forem.now = () => later;
    expect((await publishNow(tenant, channelId, { title: 'Weekly notes' })).value[0]!.state).toBe('PUBLISHED');
  });

  it("a tag Forem refuses ends as ERROR rejected with Forem's reason; a comment is refused without a call", async () => {
    const ctx = providerContext({ apiKey: forem.apiKey(1), baseUrl: forem.url });
    forem.on((call) =>
      call.path === '/api/articles' ? foremError(422, 'Tag "b@d" contains non-alphanumeric or prohibited unicode characters') : undefined,
    );
    const refused = await providerFailure(devtoProvider.publish(ctx, publishInput({ settings: { title: 'Tagged' } })));
    expect(refused).toMatchObject({ kind: 'rejected', message: expect.stringContaining('contains non-alphanumeric') });
    forem.reset();
    const calls = forem.received.length;
    expect((await providerFailure(devtoProvider.comment(ctx, publishInput({ part: 1, settings: { title: 'x' } })))).kind).toBe('rejected');
    expect(forem.received.length).toBe(calls);
    forem.on(() => foremError(500, 'Internal Server Error'));
    expect((await providerFailure(devtoProvider.publish(ctx, publishInput({ settings: { title: 'Boom' } })))).kind).toBe('transient');
  });
});

describe('the organization tool and the numbers', () => {
  it('looks an organization up by username through POST /integration-trigger/:id', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    const trigger = (data: Record<string, unknown>) =>
      t.request({
        method: 'POST',
        url: `/public/v1/integration-trigger/${channelId}`,
        key: tenant.key,
        payload: { methodName: 'organization', data },
      });
    const found = await trigger({ username: 'heraldhq' });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toEqual({ id: 77, name: 'Herald HQ', username: 'heraldhq' });
    const missing = await trigger({ username: 'nobody' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().msg).toContain('not found');
  });

  it("reads page views, reactions and comments from the account's articles; an article gone from the community is left out", async () => {
    const ctx = providerContext({ apiKey: forem.apiKey(1), baseUrl: forem.url });
    const ref = await devtoProvider.publish(ctx, publishInput({ settings: { title: `Counted ${Date.now()}` } }));
    Object.assign(
      forem.articles.find((a) => String(a.id) === ref.id)!,
      { page_views_count: 120, public_reactions_count: 7, comments_count: 3 },
    );
    const read = await devtoMetrics.posts(ctx, [ref, { id: '999999' }]);
    expect([...read.keys()]).toEqual([ref.id]);
    expect(read.get(ref.id)).toEqual({
      metrics: { views: 120, likes: 7, replies: 3 },
      raw: { page_views_count: 120, public_reactions_count: 7, comments_count: 3 },
    });
    expect(devtoMetrics.reports.account).toEqual([]);
  });
});
