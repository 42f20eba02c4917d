// WordPress end to end against WordPress itself (peers/wordpress: WordPress Playground on
// loopback, installed apart from the product): connecting with an application password, a post
// with its featured image through the engine, the category tool, a contributor's refusal and a
// revoked password. The local server in fake-wordpress.ts covers the answers WordPress cannot be
// made to give on demand (rate limits, server errors).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, getPost } from '../../helpers/posts.ts';
import { processBudget } from '../../helpers/process.ts';
import { closeOutboundClients } from '../bluesky/helpers.ts';
import { startWordPressPeer, type WordPressPeer } from './wordpress-peer.ts';

const skip = process.env.HERALD_SKIP_WORDPRESS_PEER === '1';
/** Every request to WordPress in WebAssembly takes seconds on a loaded two-core machine. */
const SLOW = processBudget(2);

describe.skipIf(skip)('WordPress provider against WordPress itself', () => {
  let t: TestApp;
  let peer: WordPressPeer;
  beforeAll(async () => {
    peer = await startWordPressPeer();
    t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  }, processBudget(4));
  afterAll(async () => {
    await closeOutboundClients();
    await t?.close();
    await peer?.stop();
  });

  const connect = (tenant: Tenant, login: string, password: string) =>
    t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: 'wordpress', site: peer.site, username: login, applicationPassword: password },
    });

  async function publishNow(tenant: Tenant, channelId: string, settings: Record<string, unknown>, value: Array<Record<string, unknown>>) {
    const [created] = await createOk(t, tenant, {
      type: 'now',
      date: new Date().toISOString(),
      posts: [{ integration: { id: channelId }, value, settings: { __type: 'wordpress', ...settings } }],
    });
    await t.settle();
    return getPost(t, tenant, created!.postId);
  }

  it(
    'connects, creates a category with the tool, and publishes a post with its featured image; WordPress holds what was sent',
    async () => {
      const admin = await peer.user('admin', 'administrator');
      const tenant = await createTenant(t);
      const connected = await connect(tenant, 'admin', admin.password);
      expect(connected.statusCode, connected.body).toBe(200);
      const channelId = (connected.json() as { integration: { id: string; name: string } }).integration.id;
      expect((await t.services.channels.config(tenant.workspaceId, channelId)).apiRoot).toBe(`${peer.site}/wp-json/`);

      const category = await t.request({
        method: 'POST',
        url: `/public/v1/integration-trigger/${channelId}`,
        key: tenant.key,
        payload: { methodName: 'createCategory', data: { name: 'Releases' } },
      });
      expect(category.statusCode, category.body).toBe(200);
      const categoryId = (category.json() as { id: number }).id;

      const uploaded = await t.request({
        method: 'POST',
        url: '/public/v1/upload',
        key: tenant.key,
        ...fileBody(png(32, 16, [20, 90, 160]), 'cover.png', 'image/png'),
      });
      expect(uploaded.statusCode, uploaded.body).toBe(200);
      const image = uploaded.json() as { id: string; path: string };
      const published = await publishNow(
        tenant,
        channelId,
        { title: 'Launch day', categories: [categoryId], slug: 'launch-day', featuredImageAlt: 'A blue banner' },
        [{ content: '<p>Launch <strong>day</strong>: <a href="https://example.com/notes">the notes</a></p>', image: [image] }],
      );
      expect(published.value[0]!.state, JSON.stringify(published)).toBe('PUBLISHED');
      // The site's permalinks: the post's date and slug.
      expect(published.releaseURL).toMatch(new RegExp(`^${peer.site}/\\d{4}/\\d{2}/\\d{2}/launch-day/$`));

      const auth = { login: 'admin', password: admin.password };
      const post = await peer.rest<{
        title: { raw: string };
        content: { raw: string };
        status: string;
        categories: number[];
        featured_media: number;
      }>(`/wp/v2/posts/${published.releaseId}?context=edit`, auth);
      expect(post).toMatchObject({ title: { raw: 'Launch day' }, status: 'publish', categories: [categoryId] });
      expect(post.content.raw).toContain('Launch <strong>day</strong>');
      const media = await peer.rest<{ alt_text: string; mime_type: string; media_details: { width: number; height: number } }>(
        `/wp/v2/media/${post.featured_media}?context=edit`,
        auth,
      );
      expect(media).toMatchObject({ alt_text: 'A blue banner', mime_type: 'image/png', media_details: { width: 32, height: 16 } });
    },
    SLOW,
  );

  it(
    "a contributor's publish is refused in WordPress's words; a pending post goes through; a revoked password needs reconnecting",
    async () => {
      const contributor = await peer.user('carl', 'contributor');
      const tenant = await createTenant(t);
      const connected = await connect(tenant, 'carl', contributor.password);
      expect(connected.statusCode, connected.body).toBe(200);
      const channelId = (connected.json() as { integration: { id: string } }).integration.id;

      const refused = await publishNow(tenant, channelId, { title: 'Straight out' }, [{ content: '<p>Hi</p>' }]);
      expect(refused.errorKind).toBe('rejected');
      expect(refused.error).toContain('rest_cannot_publish');
      const pending = await publishNow(tenant, channelId, { title: 'For review', status: 'pending' }, [{ content: '<p>Hi</p>' }]);
      expect(pending.value[0]!.state).toBe('PUBLISHED');

      await peer.revoke('carl');
      const revoked = await publishNow(tenant, channelId, { title: 'After revocation', status: 'pending' }, [{ content: '<p>Hi</p>' }]);
      expect(revoked.errorKind).toBe('auth');
      const [channel] = (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Array<
        Record<string, unknown>
      >;
      expect(channel).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    },
    SLOW,
  );
});
