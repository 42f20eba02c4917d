// WordPress end to end through the HTTP stack and the engine, against a local server speaking
// the WordPress REST API: connecting with an application password, publishing a post with its
// featured image, the settings and comment checks of GET /posts/:id/missing, the category and
// tag tools, and WordPress's refusals mapped onto the engine's failure kinds.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { wordpressProvider } from '../../../src/providers/wordpress/wordpress.provider.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, getPost } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import { FakeWordPress, wpError } from './fake-wordpress.ts';

let t: TestApp;
let wp: FakeWordPress;
beforeAll(async () => {
  wp = await new FakeWordPress().start();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
beforeEach(() => {
  wp.reset();
  wp.pretty = true;
  wp.announce = true;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await wp?.stop();
});

const connect = (tenant: Tenant, body: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: { provider: 'wordpress', ...body } });

async function connected(tenant: Tenant, userId = 1): Promise<string> {
  const login = wp.users.get(userId)!.login;
  const res = await connect(tenant, { site: wp.url, username: login, applicationPassword: wp.applicationPassword(userId) });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { integration: { id: string } }).integration.id;
}

async function upload(tenant: Tenant) {
  const uploaded = await t.request({
    method: 'POST',
    url: '/public/v1/upload',
    key: tenant.key,
    ...fileBody(png(32, 16, [20, 90, 160]), 'cover.png', 'image/png'),
  });
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  return uploaded.json() as { id: string; path: string };
}

function post(channelId: string, settings: Record<string, unknown>, value: Array<Record<string, unknown>> = [{ content: '<p>Hello</p>' }]) {
  return {
    type: 'now',
    date: new Date().toISOString(),
    posts: [{ integration: { id: channelId }, value, settings: { __type: 'wordpress', ...settings } }],
  };
}

async function publishNow(tenant: Tenant, channelId: string, settings: Record<string, unknown>, value?: Array<Record<string, unknown>>) {
  const [created] = await createOk(t, tenant, post(channelId, settings, value));
  await t.settle();
  return getPost(t, tenant, created!.postId);
}

describe('connecting a WordPress site', () => {
  it('checks the application password live, names the channel after the site, keeps the announced REST root, and reconnects the same user', async () => {
    const tenant = await createTenant(t);
    const password = wp.applicationPassword(1);
    const res = await connect(tenant, { site: wp.url, username: 'ana', applicationPassword: password });
    expect(res.statusCode, res.body).toBe(200);
    const { integration, reconnected } = res.json() as {
      integration: { id: string; name: string; profile: string; picture: string };
      reconnected: boolean;
    };
    expect(reconnected).toBe(false);
    expect(integration).toMatchObject({ name: 'Field Notes', profile: `ana@${new URL(wp.url).host}`, picture: `${wp.url}/avatar/1?s=96` });
    const config = await t.services.channels.config(tenant.workspaceId, integration.id);
    expect(config).toMatchObject({
      site: wp.url,
      username: 'ana',
      apiRoot: `${wp.url}/wp-json/`,
      applicationPassword: password.replace(/ /g, ''),
    });
    const me = wp.received.find((c) => c.path === '/wp-json/wp/v2/users/me')!;
    expect(me.url.searchParams.get('context')).toBe('edit');
    expect(me.headers.authorization).toBe(`Basic ${Buffer.from(`ana:${password.replace(/ /g, '')}`).toString('base64')}`);

    const again = await connect(tenant, { site: `${wp.url}/`, username: 'ana', applicationPassword: wp.applicationPassword(1) });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ integration: { id: integration.id }, reconnected: true });
  });

  it('finds the REST API of a site without pretty permalinks (?rest_route=), and publishes through it', async () => {
    wp.pretty = false;
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    expect((await t.services.channels.config(tenant.workspaceId, channelId)).apiRoot).toBe(`${wp.url}/?rest_route=/`);
    const published = await publishNow(tenant, channelId, { title: 'Plain permalinks' });
    expect(published.value[0]!.state).toBe('PUBLISHED');
    expect(wp.posts.find((p) => String(p.id) === published.releaseId)!.title).toBe('Plain permalinks');
  });

  it('refuses a wrong password, a user who may not write posts, and a site that is not on https, storing nothing', async () => {
    const tenant = await createTenant(t);
    const wrong = await connect(tenant, { site: wp.url, username: 'ana', applicationPassword: 'abcd EFGH ijkl MNOP qrst UVWX' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'platform_refused' });
    expect(wrong.json().msg).toContain('The provided password is an invalid application password. (incorrect_password)');

    const subscriber = await connect(tenant, { site: wp.url, username: 'sam', applicationPassword: wp.applicationPassword(3) });
    expect(subscriber.statusCode).toBe(400);
    expect(subscriber.json().msg).toContain('may not write posts');

    const plain = await connect(tenant, {
      site: 'http://blog.example.com',
      username: 'ana',
      applicationPassword: wp.applicationPassword(1),
    });
    expect(plain.statusCode).toBe(400);
    expect(plain.json()).toMatchObject({ code: 'invalid_config' });
    expect(plain.json().msg).toContain('https://');

    const short = await connect(tenant, { site: wp.url, username: 'ana', applicationPassword: 'my-login-password' });
    expect(short.statusCode).toBe(400);
    expect(short.json().msg).toContain('application password');
    expect(await t.services.channels.list(tenant.workspaceId)).toEqual([]);
  });
});

describe('publishing to WordPress', () => {
  it('uploads the image as the featured image, then creates the post with its settings and sanitised HTML; the release is the post id and link', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    const image = await upload(tenant);
    const published = await publishNow(
      tenant,
      channelId,
      {
        title: 'Launch day',
        status: 'publish',
        categories: [1],
        excerpt: 'What shipped',
        slug: 'launch-day',
        featuredImageAlt: 'A blue banner',
      },
      [
        {
          content: '<p>Launch <strong>day</strong>: <a href="https://example.com/notes">the notes</a></p><ul><li>one</li></ul>',
          image: [image],
        },
      ],
    );
    expect(published.value[0]!.state, JSON.stringify(published)).toBe('PUBLISHED');
    const sent = wp.posts.find((p) => String(p.id) === published.releaseId)!;
    expect(published.releaseURL).toBe(`${wp.url}/launch-day/`);
    expect(sent).toMatchObject({
      title: 'Launch day',
      status: 'publish',
      categories: [1],
      excerpt: 'What shipped',
      slug: 'launch-day',
      content:
        '<p>Launch <strong>day</strong>: <a href="https://example.com/notes" rel="noopener noreferrer nofollow">the notes</a></p><ul><li>one</li></ul>',
    });
    const media = wp.media.find((m) => m.id === sent.featured_media)!;
    expect(media).toMatchObject({ filename: 'cover.png', mimeType: 'image/png', alt_text: 'A blue banner', author: 1 });
    expect(media.bytes.equals(png(32, 16, [20, 90, 160]))).toBe(true);
  });

  it('GET /posts/:id/missing reports the title, comment parts and a second image before anything is sent', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    const image = await upload(tenant);
    const [created] = await createOk(t, tenant, {
      ...post(channelId, {}, [{ content: '<p>Body</p>', image: [image, image] }, { content: '<p>A comment</p>' }]),
      type: 'draft',
    });
    const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
    expect(res.statusCode, res.body).toBe(200);
    const fields = (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
    expect(fields.map((m) => m.field).sort()).toEqual(['settings.title', 'value[0].image', 'value[1]']);
    expect(fields.find((m) => m.field === 'value[1]')!.reason).toContain('does not publish comments on WordPress');
    expect(fields.find((m) => m.field === 'settings.title')!.reason).toMatch(/title/i);
  });

  it('a revoked application password ends as ERROR auth and the channel needs reconnecting', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    wp.revokePasswords(1);
    const refused = await publishNow(tenant, channelId, { title: 'After revocation' });
    expect(refused.value[0]!.state).toBe('ERROR');
    expect(refused.errorKind).toBe('auth');
    const [channel] = (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Array<
      Record<string, unknown>
    >;
    expect(channel).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
  });

  it("a refused post ends as ERROR rejected with WordPress's reason; a contributor may only send posts for review", async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    const unknownTerm = await publishNow(tenant, channelId, { title: 'Unknown category', categories: [999] });
    expect(unknownTerm.value[0]!.state).toBe('ERROR');
    expect(unknownTerm.errorKind).toBe('rejected');
    expect(unknownTerm.error).toContain('Sorry, you are not allowed to assign the provided terms. (rest_cannot_assign_term)');

    const other = await createTenant(t);
    const contributor = await connected(other, 2);
    const publishing = await publishNow(other, contributor, { title: 'Straight out' });
    expect(publishing.errorKind).toBe('rejected');
    expect(publishing.error).toContain('rest_cannot_publish');
    const pending = await publishNow(other, contributor, { title: 'For review', status: 'pending' });
    expect(pending.value[0]!.state).toBe('PUBLISHED');
    expect(wp.posts.find((p) => String(p.id) === pending.releaseId)).toMatchObject({ status: 'pending', author: 2 });
  });

  it('a rate limit (429 with Retry-After) waits and retries later; a 500 after sending is unconfirmed and never sent twice', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    wp.on((call) =>
      call.route === '/wp/v2/posts'
        ? { status: 429, body: { code: 'too_many_requests', message: 'Slow down' }, headers: { 'retry-after': '600' } }
        : undefined,
    );
    const before = Date.now();
    const [limited] = await createOk(t, tenant, post(channelId, { title: 'Later' }));
    await t.settle();
    const waiting = await getPost(t, tenant, limited!.postId);
    expect(waiting.value[0]!.state).not.toBe('PUBLISHED');
    expect(waiting.errorKind).toBeNull();
    const { next_run_at: nextRun } = await t.runtime.db
      .selectFrom('posts')
      .select('next_run_at')
      .where('id', '=', limited!.postId)
      .executeTakeFirstOrThrow();
    expect(Date.parse(nextRun!)).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    await t.request({ method: 'DELETE', url: `/public/v1/posts/${limited!.postId}`, key: tenant.key });

    wp.reset();
    wp.on((call) =>
      call.route === '/wp/v2/posts' ? wpError(500, 'internal_server_error', 'There has been a critical error on this website.') : undefined,
    );
    const calls = wp.received.length;
    const lost = await publishNow(tenant, channelId, { title: 'Critical error' });
    expect(lost.value[0]!.state).toBe('ERROR');
    expect(lost.errorKind).toBe('unconfirmed');
    expect(wp.received.slice(calls).filter((c) => c.path === '/wp-json/wp/v2/posts')).toHaveLength(1);
  });

  it('maps answers without the engine: 503 maintenance is transient; a missing title, comments and a second image are refused', async () => {
    const ctx = providerContext({
      site: wp.url,
      username: 'ana',
      applicationPassword: wp.applicationPassword(1),
      apiRoot: `${wp.url}/wp-json/`,
    });
    wp.on(() => ({
      status: 503,
      body: { code: 'maintenance', message: 'Briefly unavailable for scheduled maintenance.' },
      headers: { 'retry-after': '60' },
    }));
    const maintenance = await providerFailure(wordpressProvider.publish(ctx, publishInput({ settings: { title: 'x' } })));
    expect(maintenance).toMatchObject({ kind: 'transient', options: { retryAfterMs: 60_000 } });
    wp.reset();
    const noTitle = await providerFailure(wordpressProvider.publish(ctx, publishInput({ settings: {} })));
    expect(noTitle.kind).toBe('rejected');
    expect(noTitle.message).toContain('settings.title');
    const comment = await providerFailure(wordpressProvider.comment(ctx, publishInput({ part: 1, settings: { title: 'x' } })));
    expect(comment.kind).toBe('rejected');
    const twoImages = await providerFailure(
      wordpressProvider.publish(ctx, publishInput({ settings: { title: 'x' }, media: [mediaItem(png(2, 2)), mediaItem(png(2, 2))] })),
    );
    expect(twoImages.message).toContain('featured image');
    // A file name beyond ASCII cannot stand in a header: it goes up with those characters replaced.
    const named = await wordpressProvider.publish(
      ctx,
      publishInput({ settings: { title: 'Named' }, media: [mediaItem(png(2, 2), { name: 'été "1".png' })] }),
    );
    expect(wp.media.find((m) => m.id === wp.posts.find((p) => String(p.id) === named.id)!.featured_media)!.filename).toBe('_t_ _1_.png');
  });
});

describe('category and tag tools', () => {
  it('lists and creates categories and tags through POST /integration-trigger/:id; a duplicate name gives the existing term', async () => {
    const tenant = await createTenant(t);
    const channelId = await connected(tenant);
    const trigger = (methodName: string, data: Record<string, unknown> = {}) =>
      t.request({ method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, key: tenant.key, payload: { methodName, data } });

    const settings = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channelId}`, key: tenant.key });
    expect((settings.json() as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual([
      'listCategories',
      'createCategory',
      'listTags',
      'createTag',
    ]);
    const created = await trigger('createCategory', { name: 'Releases' });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({ name: 'Releases', slug: 'releases', existing: false });
    const again = await trigger('createCategory', { name: 'releases' });
    expect(again.json()).toMatchObject({ id: created.json().id, existing: true });
    const listed = await trigger('listCategories', { search: 'rel' });
    expect(listed.json()).toEqual({ categories: [expect.objectContaining({ id: created.json().id, name: 'Releases' })] });
    const tag = await trigger('createTag', { name: 'Launch' });
    expect((await trigger('listTags')).json()).toEqual({ tags: [expect.objectContaining({ id: tag.json().id, name: 'Launch' })] });

    const published = await publishNow(tenant, channelId, { title: 'Filed', categories: [created.json().id], tags: [tag.json().id] });
    expect(wp.posts.find((p) => String(p.id) === published.releaseId)).toMatchObject({
      categories: [created.json().id],
      tags: [tag.json().id],
    });

    const other = await createTenant(t);
    const contributor = await connected(other, 2);
    const refused = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${contributor}`,
      key: other.key,
      payload: { methodName: 'createTag', data: { name: 'Nope' } },
    });
    expect(refused.statusCode).toBe(502);
    expect(refused.json().msg).toContain('not allowed to create terms');
    const elsewhere = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${channelId}`,
      key: other.key,
      payload: { methodName: 'listTags' },
    });
    expect(elsewhere.statusCode).toBe(404);
  });
});
