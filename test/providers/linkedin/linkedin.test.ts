// LinkedIn (a member, or a page they administer) through the operator's app, end to end against a
// local server speaking LinkedIn's API: sign-in, the versioned Posts API with an uploaded image,
// comments through socialActions, Little Text escaping, and token renewal.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderError } from '../../../src/providers/provider.ts';
import { escapeLittleText, linkedinProvider } from '../../../src/providers/linkedin/linkedin.provider.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type TestApp } from '../../helpers/app.ts';
import { fileBody, mp4, png } from '../../helpers/media-files.ts';
import { createOk, getPost, postBody } from '../../helpers/posts.ts';
import { FakeLinkedIn } from '../oauth/fake-linkedin.ts';
import { listed, signInThroughApi } from '../oauth/sign-in.ts';
import { publishThreadToChannel } from '../platforms/platform-e2e.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';

let t: TestApp;
let li: FakeLinkedIn;
beforeAll(async () => {
  li = await new FakeLinkedIn().start();
  t = await createTestApp({
    engine: true,
    env: {
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      LINKEDIN_CLIENT_ID: li.clientId,
      LINKEDIN_CLIENT_SECRET: li.clientSecret,
      LINKEDIN_API_BASE: li.url,
    },
  });
});
beforeEach(() => {
  li.reset();
  li.expiresIn = 5_184_000;
  li.refuseRefresh = false;
  li.issueRefreshTokens = true;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await li.stop();
});

const textPost = (channelId: string, content: string) => ({
  ...postBody(channelId, { type: 'now' }),
  posts: [{ integration: { id: channelId }, value: [{ content }], settings: { __type: 'linkedin' } }],
});

describe('LinkedIn', () => {
  it('connects a member through the sign-in and publishes a post with an image and two comments', async () => {
    const tenant = await createTenant(t);
    const { authorize, channels } = await signInThroughApi(t, tenant, { provider: 'linkedin' });
    expect(authorize.pathname).toBe('/oauth/v2/authorization');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/integrations/callback/linkedin`);
    expect(authorize.searchParams.get('scope')).toBe('openid profile w_member_social');
    expect(channels[0]).toMatchObject({ identifier: 'linkedin', name: 'Lena Linked', disabled: false });

    const { post } = await publishThreadToChannel(t, tenant, channels[0]!.id, 'linkedin');
    expect(li.posts).toHaveLength(1);
    const [shared] = li.posts;
    expect(shared).toMatchObject({
      author: 'urn:li:person:abc123XYZ',
      visibility: 'PUBLIC',
      commentary: 'Launch day: the notes \\(https://example.com/launch\\)',
    });
    const imageId = (shared!.content as { media: { id: string } }).media.id;
    expect(li.images.get(imageId)).toMatchObject({ owner: 'urn:li:person:abc123XYZ', uploaded: true });
    expect(li.images.get(imageId)!.bytes).toBeGreaterThan(0);
    expect(shared!.comments.map((c) => [c.actor, c.text])).toEqual([
      ['urn:li:person:abc123XYZ', 'First comment'],
      ['urn:li:person:abc123XYZ', 'Second comment'],
    ]);
    expect(post.releaseURL).toBe(`https://www.linkedin.com/feed/update/${shared!.id}/`);
    // Every call to the versioned API carried the version headers (the fake refuses others).
    expect(
      li.calls
        .filter((c) => c.path.startsWith('/rest/'))
        .every((c) => c.headers['linkedin-version'] === '202510' && c.headers['x-restli-protocol-version'] === '2.0.0'),
    ).toBe(true);
  });

  it('uploads a video in the parts LinkedIn asks for, finalizes it with their ETags and waits until it is available', async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'linkedin' });
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, channels[0]!.id), {
      platformApps: t.services.channels.platformApps,
    });
    const bytes = Buffer.alloc(5 * 1024 * 1024, 7);
    const ref = await linkedinProvider.publish(
      ctx,
      publishInput({ text: 'A film', media: [mediaItem(bytes, { mimeType: 'video/mp4', name: 'film.mp4' })] }),
    );
    const [video] = [...li.videos.values()];
    expect(video).toMatchObject({ size: bytes.length, finalized: true, parts: [`etag-0-${4 * 1024 * 1024}`, `etag-1-${1024 * 1024}`] });
    expect(li.posts.find((p) => p.id === ref.id)!.content).toMatchObject({ media: { id: expect.stringMatching(/^urn:li:video:/) } });
  });

  it("a comment with an image uploads it and sends it as the comment's content; a video, several files, a description or a long text are refused before publishing", async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'linkedin' });
    const id = channels[0]!.id;
    const upload = async (data: Buffer, name: string, type: string) =>
      (await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(data, name, type) })).json() as {
        id: string;
        path: string;
      };
    const image = await upload(png(12, 12), 'chart.png', 'image/png');
    const [created] = await createOk(t, tenant, {
      ...postBody(id, { type: 'now' }),
      posts: [
        {
          integration: { id },
          value: [{ content: '<p>Results are in</p>' }, { content: '<p>The chart</p>', image: [image] }],
          settings: { __type: 'linkedin' },
        },
      ],
    });
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    const [comment] = li.posts[0]!.comments;
    expect(comment).toMatchObject({ actor: 'urn:li:person:abc123XYZ', text: 'The chart', image: expect.stringMatching(/^urn:li:image:/) });
    expect(li.images.get(comment!.image!)).toMatchObject({ owner: 'urn:li:person:abc123XYZ', uploaded: true });

    const missingFor = async (
      value: Array<{ content: string; image?: Array<{ id: string; path: string }> }>,
      settings: Record<string, unknown> = {},
    ) => {
      const [draft] = await createOk(t, tenant, {
        ...postBody(id, { type: 'draft' }),
        posts: [{ integration: { id }, value, settings: { __type: 'linkedin', ...settings } }],
      });
      return (
        (await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}/missing`, key: tenant.key })).json() as {
          missing: Array<{ field: string; reason: string }>;
        }
      ).missing;
    };
    const film = await upload(mp4(16, 16), 'film.mp4', 'video/mp4');
    const second = await upload(png(10, 10, [1, 2, 3]), 'second.png', 'image/png');
    expect(await missingFor([{ content: '<p>Post</p>' }, { content: '<p>A film</p>', image: [film] }])).toContainEqual({
      field: 'value[1].image',
      reason: 'LinkedIn comments take one image, not a video; put the video in the post itself.',
    });
    expect(await missingFor([{ content: '<p>Post</p>' }, { content: '<p>Two</p>', image: [image, second] }])).toContainEqual({
      field: 'value[1].image',
      reason: 'LinkedIn comments take one image; this one has 2 files.',
    });
    expect(
      await missingFor([{ content: '<p>Post</p>' }, { content: '<p>Described</p>', image: [image] }], {
        alt: { [image.id]: 'A rising chart' },
      }),
    ).toContainEqual({
      field: 'settings.alt',
      reason: "LinkedIn shows no description on a comment's image; remove the one for value[1].image[0], or move the image to the post.",
    });
    expect(await missingFor([{ content: '<p>Post</p>' }, { content: `<p>${'a'.repeat(1251)}</p>` }])).toContainEqual({
      field: 'value[1].content',
      reason: 'The comment is 1251 characters long; LinkedIn comments take 1,250.',
    });
    expect(
      await missingFor(
        [
          { content: '<p>Post</p>', image: [image] },
          { content: `<p>${'a'.repeat(1250)}</p>`, image: [second] },
        ],
        { alt: { [image.id]: 'On the post: fine' } },
      ),
    ).toEqual([]);
    expect(await missingFor([{ content: `<p>${'a'.repeat(3001)}</p>` }])).toContainEqual({
      field: 'value[0].content',
      reason: 'The text is 3001 characters long; LinkedIn allows 3000.',
    });
  });

  it('escapes Little Text markup characters', () => {
    expect(escapeLittleText('a (b) #tag @x *y* _z_ ~w~ [c] {d} <e> | \\')).toBe(
      'a \\(b\\) \\#tag \\@x \\*y\\* \\_z\\_ \\~w\\~ \\[c\\] \\{d\\} \\<e\\> \\| \\\\',
    );
  });

  it("connects a page the member administers (the only one, the one named, or the one picked on Herald's page), posting as the organization; refuses one they do not", async () => {
    const tenant = await createTenant(t);
    // The only page the member administers is taken without asking.
    const { authorize, channels } = await signInThroughApi(t, tenant, { provider: 'linkedin-page' });
    expect(authorize.searchParams.get('scope')).toContain('w_organization_social');
    expect(channels[0]).toMatchObject({ identifier: 'linkedin-page', name: 'Herald Inc', profile: 'herald-inc' });
    const [created] = await createOk(t, tenant, {
      ...textPost(channels[0]!.id, '<p>From the page</p>'),
      posts: [
        {
          integration: { id: channels[0]!.id },
          value: [{ content: '<p>From the page</p>' }, { content: '<p>And a comment</p>' }],
          settings: { __type: 'linkedin-page' },
        },
      ],
    });
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(li.posts[0]).toMatchObject({ author: 'urn:li:organization:5515715', commentary: 'From the page' });
    expect(li.posts[0]!.comments[0]).toMatchObject({ actor: 'urn:li:organization:5515715', text: 'And a comment' });

    const other = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: 'linkedin-page', page: '42' },
    });
    const answer = await fetch(other.json().url, { redirect: 'manual' });
    const back = new URL(answer.headers.get('location')!);
    const refused = await t.request({ method: 'GET', url: back.pathname + back.search });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('You do not administer the LinkedIn page 42; the pages you administer are 5515715.');

    // With several pages, the member picks one on Herald's page after the sign-in (a single-use step).
    li.admins.set('abc123XYZ', ['5515715', '777']);
    li.organizations.set('777', { localizedName: 'Side <Project>', vanityName: 'side-project' });
    try {
      const several = await t.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: tenant.key,
        payload: { provider: 'linkedin-page' },
      });
      const back2 = new URL((await fetch(several.json().url, { redirect: 'manual' })).headers.get('location')!);
      const ask = await t.request({ method: 'GET', url: back2.pathname + back2.search });
      expect(ask.statusCode, ask.body).toBe(200);
      expect(ask.headers['content-security-policy']).toContain("form-action 'self'");
      expect(ask.body).toContain('Side &#60;Project&#62;');
      // Built with the one page kit: the same stylesheet and header as every other page.
      const signInPage = (await t.request({ method: 'GET', url: '/account/sign-in' })).body;
      expect(/<style>[\s\S]*?<\/style>/.exec(ask.body)?.[0]).toBe(/<style>[\s\S]*?<\/style>/.exec(signInPage)![0]);
      expect(ask.body).toContain('<header class="top"><a class="brand" href="/account">Herald</a></header>');
      const form = /action="([^"]+)"[\s\S]*name="state" value="([^"]+)"/.exec(ask.body)!;
      expect(form[1]).toBe('/integrations/callback/linkedin-page/choose');
      expect(ask.body).toContain('name="choice" value="777"');
      const pick = (choice: string) =>
        t.request({
          method: 'POST',
          url: form[1]!,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ state: form[2]!, choice }).toString(),
        });
      const chosen = await pick('777');
      expect(chosen.statusCode, chosen.body).toBe(200);
      expect(chosen.body).toContain('Side &#60;Project&#62;&#34; is connected');
      const replay = await pick('5515715');
      expect(replay.statusCode).toBe(400);
      expect(replay.body).toContain('already used');
      const both = await listed(t, tenant);
      expect(both.map((c) => c.name).sort()).toEqual(['Herald Inc', 'Side <Project>']);
      expect((await t.services.channels.config(tenant.workspaceId, both.find((c) => c.name === 'Side <Project>')!.id)).page).toBe('777');
    } finally {
      li.admins.set('abc123XYZ', ['5515715']);
    }
  });

  it('renews a token close to expiry before publishing; a refused renewal disables the channel and notifies', async () => {
    li.expiresIn = 3600;
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'linkedin' });
    const before = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    const [renewed] = await createOk(t, tenant, textPost(channels[0]!.id, '<p>After a renewal</p>'));
    await t.settle();
    expect((await getPost(t, tenant, renewed!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(li.refreshes).toBe(1);
    expect((await t.services.channels.config(tenant.workspaceId, channels[0]!.id)).accessToken).not.toBe(before.accessToken);

    li.refuseRefresh = true;
    const [refused] = await createOk(t, tenant, textPost(channels[0]!.id, '<p>Never sent</p>'));
    await t.settle();
    expect((await getPost(t, tenant, refused!.postId)).errorKind).toBe('auth');
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('LinkedIn refused to renew the access token');
    expect(li.posts).toHaveLength(1);
  });

  it("maps LinkedIn's refusals: a duplicate is rejected with LinkedIn's reason; a rate limit is retried", async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'linkedin' });
    const [first] = await createOk(t, tenant, textPost(channels[0]!.id, '<p>Twice</p>'));
    await t.settle();
    expect((await getPost(t, tenant, first!.postId)).value[0]!.state).toBe('PUBLISHED');
    const [second] = await createOk(t, tenant, textPost(channels[0]!.id, '<p>Twice</p>'));
    await t.settle();
    const refused = await getPost(t, tenant, second!.postId);
    expect(refused.value[0]!.state).toBe('ERROR');
    expect(JSON.stringify(refused)).toContain('Content is a duplicate');

    const config = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    const ctx = providerContext(config, { platformApps: t.services.channels.platformApps });
    const failure = (answer: { status: number; body?: unknown; headers?: Record<string, string> }) => {
      li.reset();
      li.on((req) => (req.path === '/rest/posts' ? answer : undefined));
      return linkedinProvider.publish(ctx, publishInput({ text: 'Mapped' })).then(
        () => null,
        (error: unknown) => error as ProviderError,
      );
    };
    expect(
      await failure({
        status: 429,
        body: { status: 429, message: 'Resource level throttle limit reached' },
        headers: { 'retry-after': '30' },
      }),
    ).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 30_000 } });
    expect(await failure({ status: 503, body: { status: 503, message: 'Service unavailable' } })).toMatchObject({ kind: 'transient' });
    expect(await failure({ status: 401, body: { status: 401, message: 'Invalid access token' } })).toMatchObject({ kind: 'auth' });
    expect(await failure({ status: 422, body: { status: 422, message: 'Commentary is too long' } })).toMatchObject({
      kind: 'rejected',
      message: 'LinkedIn answered 422: Commentary is too long',
    });
    // A post created without its id coming back is not retried: LinkedIn has no idempotency key.
    expect(await failure({ status: 201 })).toMatchObject({ kind: 'unknown_outcome' });
    expect(linkedinProvider.idempotentWrites).toBe(false);
  });
});
