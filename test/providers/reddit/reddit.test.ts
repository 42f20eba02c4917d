// Reddit through the operator's app, end to end against a local server speaking Reddit's OAuth
// API: sign-in with a permanent grant, an image post (media asset upload) with two comments, text
// and link posts with flair and marks, the subreddit tools, the subreddit's rules in
// GET /posts/:id/missing, Reddit's refusals (HTTP 200 with json.errors), rate limits, renewal
// and a refused grant.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { redditUserAgent } from '../../../src/providers/reddit/reddit.client.ts';
import { redditProvider } from '../../../src/providers/reddit/reddit.provider.ts';
import { clearSubredditRules } from '../../../src/providers/reddit/reddit.rules.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type Tenant, type TestApp } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, createPosts, getPost, postBody } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { FakeReddit } from '../oauth/fake-reddit.ts';
import { listed, refreshChannelNumbers, signInThroughApi } from '../oauth/sign-in.ts';

let t: TestApp;
let reddit: FakeReddit;
beforeAll(async () => {
  reddit = await new FakeReddit().start();
  t = await createTestApp({
    engine: true,
    env: {
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      REDDIT_CLIENT_ID: reddit.clientId,
      REDDIT_CLIENT_SECRET: reddit.clientSecret,
      REDDIT_API_BASE: reddit.url,
    },
  });
});
beforeEach(() => {
  reddit.reset();
  reddit.expiresIn = 3600;
  clearSubredditRules();
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await reddit.stop();
});

async function connected(): Promise<{ tenant: Tenant; id: string }> {
  const tenant = await createTenant(t);
  const { channels } = await signInThroughApi(t, tenant, { provider: 'reddit' });
  return { tenant, id: channels[0]!.id };
}

async function upload(tenant: Tenant) {
  const res = await t.request({
    method: 'POST',
    url: '/public/v1/upload',
    key: tenant.key,
    ...fileBody(png(24, 12), 'chart.png', 'image/png'),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; path: string };
}

function post(
  id: string,
  values: Array<{ content: string; image?: Array<{ id: string; path: string }> }>,
  settings: Record<string, unknown>,
) {
  return { ...postBody(id, { type: 'now' }), posts: [{ integration: { id }, value: values, settings: { __type: 'reddit', ...settings } }] };
}

async function missing(tenant: Tenant, postId: string) {
  const res = await t.request({ method: 'GET', url: `/public/v1/posts/${postId}/missing`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { ready: boolean; missing: Array<{ field: string; reason: string }> };
}

function trigger(tenant: Tenant, id: string, methodName: string, data: Record<string, unknown> = {}) {
  return t.request({ method: 'POST', url: `/public/v1/integration-trigger/${id}`, key: tenant.key, payload: { methodName, data } });
}

describe('Reddit', () => {
  it('connects through the sign-in and publishes an image post with two comments, each replying to the one before', async () => {
    const tenant = await createTenant(t);
    const { authorize, channels } = await signInThroughApi(t, tenant, { provider: 'reddit' });
    expect(authorize.pathname).toBe('/api/v1/authorize');
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: reddit.clientId,
      response_type: 'code',
      duration: 'permanent',
      scope: 'identity submit read flair mysubreddits',
      redirect_uri: `${TEST_BASE_URL}/integrations/callback/reddit`,
    });
    expect(channels[0]).toMatchObject({ identifier: 'reddit', name: 'herald_tester', profile: 'u/herald_tester', disabled: false });
    const id = channels[0]!.id;
    const config = await t.services.channels.config(tenant.workspaceId, id);
    expect(config).toMatchObject({ userId: 'k3x9q', username: 'herald_tester' });
    expect(typeof config.refreshToken).toBe('string');

    const image = await upload(tenant);
    const [created] = await createOk(
      t,
      tenant,
      post(
        id,
        [
          { content: '', image: [image] },
          { content: '<p>The <strong>details</strong> are in the notes</p>' },
          { content: '<p>And a follow-up</p>' },
        ],
        {
          subreddit: 'r/HeraldTest',
          title: 'Our launch chart',
        },
      ),
    );
    await t.settle();
    const published = await getPost(t, tenant, created!.postId);
    expect(
      published.value.map((v) => v.state),
      JSON.stringify(published),
    ).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
    const [root, first, second] = reddit.things;
    expect(root).toMatchObject({ kind: 't3', subreddit: 'HeraldTest', title: 'Our launch chart', post_kind: 'image' });
    expect(reddit.uploads.get(root!.url!.replace(/^.*\/media-upload\//, ''))).toMatchObject({ type: 'image/png' });
    expect(reddit.uploads.get(root!.url!.replace(/^.*\/media-upload\//, ''))!.size).toBeGreaterThan(0);
    expect(first).toMatchObject({ kind: 't1', parent: root!.name, text: 'The **details** are in the notes' });
    expect(second).toMatchObject({ kind: 't1', parent: first!.name, text: 'And a follow-up' });
    expect(published.releaseId).toBe(root!.name);
    expect(published.releaseURL).toBe(`https://www.reddit.com/r/HeraldTest/comments/${root!.id}/`);
    // Every call carried a User-Agent in Reddit's form, naming the account it acts for.
    expect([...reddit.agents].every((ua) => /^server:reddit-client-id:1\.0( \(by \/u\/herald_tester\))?$/.test(ua))).toBe(true);
    expect(reddit.agents).toContain('server:reddit-client-id:1.0 (by /u/herald_tester)');
    expect(reddit.refreshes).toBe(0);
  });

  it('publishes a text post with flair, NSFW and spoiler marks, and a link post from content that is a link alone', async () => {
    const { tenant, id } = await connected();
    const flair = 'f9e8d7c6-0000-1111-2222-333344445555';
    const [text] = await createOk(
      t,
      tenant,
      post(id, [{ content: '<p>Hello <em>Reddit</em> [1]</p>' }], {
        subreddit: 'HeraldTest',
        title: 'A text post',
        flairId: flair,
        flairText: 'Herald',
        nsfw: true,
        spoiler: true,
      }),
    );
    const [link] = await createOk(
      t,
      tenant,
      post(id, [{ content: '<p>https://example.com/launch</p>' }], { subreddit: 'LinksOnly', title: 'A link' }),
    );
    await t.settle();
    expect((await getPost(t, tenant, text!.postId)).state).toBe('PUBLISHED');
    expect((await getPost(t, tenant, link!.postId)).state).toBe('PUBLISHED');
    const self = reddit.things.find((th) => th.title === 'A text post')!;
    expect(self).toMatchObject({ post_kind: 'self', text: 'Hello *Reddit* \\[1\\]', flair_id: flair, nsfw: true, spoiler: true });
    const submit = reddit.calls.find((c) => c.path === '/api/submit' && c.form.get('title') === 'A text post')!;
    expect(Object.fromEntries(submit.form)).toMatchObject({
      api_type: 'json',
      resubmit: 'false',
      flair_text: 'Herald',
      sendreplies: 'true',
    });
    expect(reddit.things.find((th) => th.title === 'A link')).toMatchObject({
      post_kind: 'link',
      url: 'https://example.com/launch',
      subreddit: 'LinksOnly',
    });

    // The same link again: Reddit refuses it (resubmit=false), and the refusal reads as words.
    const [again] = await createOk(
      t,
      tenant,
      post(id, [{ content: '<p>https://example.com/launch</p>' }], { subreddit: 'LinksOnly', title: 'A link' }),
    );
    await t.settle();
    const refused = await getPost(t, tenant, again!.postId);
    expect(refused).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(refused.error).toContain('that link was already posted there');
  });

  it("lists subreddits and flairs through the tools, and reports a subreddit's rules in /missing once read", async () => {
    const { tenant, id } = await connected();
    const mine = await trigger(tenant, id, 'subreddits');
    expect(mine.statusCode, mine.body).toBe(200);
    expect((mine.json() as Array<{ name: string }>).map((s) => s.name)).toEqual(['HeraldTest', 'LinksOnly', 'FlairFirst']);
    const found = (await trigger(tenant, id, 'subreddits', { query: 'links' })).json() as unknown[];
    expect(found).toEqual([
      { name: 'LinksOnly', title: 'LinksOnly on Reddit', subscribers: 4200, submissionType: 'link', allowImages: false, nsfw: false },
    ]);
    const flairs = await trigger(tenant, id, 'flairs', { subreddit: 'r/FlairFirst' });
    expect(flairs.json()).toEqual([{ id: 'aaaa1111-0000-1111-2222-333344445555', text: 'Question', editable: false }]);
    const noFlairs = await trigger(tenant, id, 'flairs', { subreddit: 'LinksOnly' });
    expect(noFlairs.statusCode).toBe(400);
    expect(noFlairs.json()).toMatchObject({ code: 'platform_rejected' });
    expect((await trigger(tenant, id, 'flairs', { subreddit: 'not a name' })).statusCode).toBe(400);

    // Settings Reddit needs are reported before anything is read.
    const [bare] = await createOk(t, tenant, { ...post(id, [{ content: '<p>Hi</p>' }], {}), type: 'draft' });
    expect((await missing(tenant, bare!.postId)).missing.map((m) => m.field)).toEqual(['settings.subreddit', 'settings.title']);

    // A text post to a links-only subreddit: known from the listing above.
    const [self] = await createOk(t, tenant, {
      ...post(id, [{ content: '<p>Words</p>' }], { subreddit: 'LinksOnly', title: 'Words' }),
      type: 'draft',
    });
    expect((await missing(tenant, self!.postId)).missing).toEqual([
      { field: 'settings.kind', reason: 'r/LinksOnly takes link posts only (its submission type is "link").' },
    ]);
    // The post requirements come with the rules tool: a flair, a title of 10 characters, body text.
    const [short] = await createOk(t, tenant, {
      ...post(id, [{ content: '<p>https://example.com/x</p>' }], { subreddit: 'FlairFirst', title: 'Short', kind: 'self' }),
      type: 'draft',
    });
    expect((await missing(tenant, short!.postId)).missing.map((m) => m.field)).toEqual([]);
    const rules = await trigger(tenant, id, 'rules', { subreddit: 'FlairFirst' });
    expect(rules.json()).toMatchObject({ name: 'FlairFirst', submissionType: 'self', flairRequired: true, titleMin: 10, body: 'required' });
    expect((await missing(tenant, short!.postId)).missing).toEqual([
      { field: 'settings.flairId', reason: 'r/FlairFirst requires a flair: pick one with the flairs tool.' },
      { field: 'settings.title', reason: 'r/FlairFirst wants titles of at least 10 characters.' },
    ]);
    // Listing the subreddits again keeps the requirements the rules tool read.
    expect((await trigger(tenant, id, 'subreddits')).statusCode).toBe(200);
    expect((await missing(tenant, short!.postId)).missing.map((m) => m.field)).toEqual(['settings.flairId', 'settings.title']);
    const unknown = await trigger(tenant, id, 'rules', { subreddit: 'NoSuchPlace' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ msg: expect.stringContaining('Reddit has no subreddit r/NoSuchPlace') });

    // Publishing reads the rules live, whatever this process remembered: the post is refused before it is submitted.
    clearSubredditRules();
    const [sent] = await createOk(t, tenant, post(id, [{ content: '<p>Words</p>' }], { subreddit: 'LinksOnly', title: 'Words' }));
    await t.settle();
    const refused = await getPost(t, tenant, sent!.postId);
    expect(refused).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(refused.error).toContain('r/LinksOnly takes link posts only');
    expect(reddit.calls.filter((c) => c.path === '/api/submit')).toHaveLength(0);
  });

  it('checks the shape of each post type in /missing', async () => {
    const { tenant, id } = await connected();
    const image = await upload(tenant);
    const cases: Array<[Array<{ content: string; image?: Array<{ id: string; path: string }> }>, Record<string, unknown>, string[]]> = [
      [[{ content: '<p>Words</p>', image: [image] }], { kind: 'image' }, ['value[0].content']],
      [[{ content: '<p>Words</p>', image: [image] }], { kind: 'self' }, ['value[0].image']],
      [[{ content: '<p>Words and https://example.com</p>' }], { kind: 'link', url: 'https://example.com' }, ['value[0].content']],
      [[{ content: '<p>Words</p>' }], { kind: 'link' }, ['settings.url']],
      [[{ content: '<p>Words</p>' }, { content: '<p>x</p>', image: [image] }], {}, ['value[1].image']],
    ];
    for (const [values, settings, fields] of cases) {
      const [draft] = await createOk(t, tenant, {
        ...post(id, values, { subreddit: 'HeraldTest', title: 'T', ...settings }),
        type: 'draft',
      });
      expect(
        (await missing(tenant, draft!.postId)).missing.map((m) => m.field),
        JSON.stringify(settings),
      ).toEqual(fields);
    }
    // A title longer than Reddit takes is refused when the post is written.
    const long = await createPosts(t, tenant, {
      ...post(id, [{ content: '<p>Words</p>' }], { subreddit: 'HeraldTest', title: 'x'.repeat(301) }),
      type: 'draft',
    });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('Reddit takes titles of up to 300 characters.');
  });

  it("maps Reddit's refusals: RATELIMIT in a 200 with its wait, 429 with X-Ratelimit-Reset, SUBREDDIT_NOEXIST, 401, and a lost answer", async () => {
    const { tenant, id } = await connected();
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, id), {
      platformApps: t.services.channels.platformApps,
    });
    const input = (title: string, subreddit = 'HeraldTest') => publishInput({ text: 'Body', settings: { subreddit, title } });
    reddit.rateLimitNextSubmit = true;
    const limited = await providerFailure(redditProvider.publish(ctx, input('Limited')));
    expect(limited).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 300_000 } });
    expect(limited.message).toContain('Take a break for 5 minutes');

    reddit.on((req) =>
      req.path === '/api/submit'
        ? {
            status: 429,
            body: { message: 'Too Many Requests', error: 429 },
            headers: { 'x-ratelimit-reset': '42', 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '100' },
          }
        : undefined,
    );
    expect(await providerFailure(redditProvider.publish(ctx, input('Throttled')))).toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterMs: 42_000 },
    });
    reddit.reset();

    reddit.subreddits.set('vanished', { name: 'Vanished', submission_type: 'any', allow_images: true });
    const readRules = redditProvider.publish(ctx, input('Gone', 'Vanished'));
    // The subreddit disappears between the rules' read and the submit.
    reddit.on((req) =>
      req.path === '/api/submit'
        ? { status: 200, body: { json: { errors: [['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']] } } }
        : undefined,
    );
    const gone = await providerFailure(readRules);
    expect(gone).toMatchObject({ kind: 'rejected' });
    expect(gone.message).toBe("Reddit answered 400: that subreddit does not exist (that subreddit doesn't exist) [sr]");
    reddit.reset();

    reddit.on((req) => (req.path === '/api/submit' ? { status: 200, body: { json: { errors: [], data: {} } } } : undefined));
    expect(await providerFailure(redditProvider.publish(ctx, input('No id')))).toMatchObject({ kind: 'unknown_outcome' });
    reddit.reset();
    reddit.on((req) => (req.path === '/api/submit' ? { status: 503, body: { message: 'Service Unavailable', error: 503 } } : undefined));
    expect(await providerFailure(redditProvider.publish(ctx, input('Down')))).toMatchObject({ kind: 'transient' });
    reddit.reset();
    reddit.revokeAll();
    expect(await providerFailure(redditProvider.publish(ctx, input('Revoked')))).toMatchObject({ kind: 'auth' });
    expect(redditProvider.idempotentWrites).toBe(false);
  });

  it('renews an expiring token before publishing, keeping the refresh token; a refused grant disables the channel for reconnecting', async () => {
    reddit.expiresIn = 120;
    const { tenant, id } = await connected();
    reddit.expiresIn = 3600;
    const before = await t.services.channels.config(tenant.workspaceId, id);
    const [one] = await createOk(t, tenant, post(id, [{ content: '<p>After renewal</p>' }], { subreddit: 'HeraldTest', title: 'Renewed' }));
    await t.settle();
    expect((await getPost(t, tenant, one!.postId)).state).toBe('PUBLISHED');
    expect(reddit.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, id);
    expect(after.refreshToken).toBe(before.refreshToken);
    expect(after.accessToken).not.toBe(before.accessToken);
    const refresh = reddit.calls.find((c) => c.path === '/api/v1/access_token')!;
    expect(refresh.headers.authorization).toBe(`Basic ${Buffer.from(`${reddit.clientId}:${reddit.clientSecret}`).toString('base64')}`);

    // The tools renew too: an expiring token is renewed before the tool reads Reddit.
    reddit.expiresIn = 120;
    const second = await connected();
    reddit.expiresIn = 3600;
    expect((await trigger(second.tenant, second.id, 'subreddits')).statusCode).toBe(200);
    expect(reddit.refreshes).toBe(2);

    reddit.expiresIn = 120;
    const third = await connected();
    reddit.refuseRefresh = true;
    const [never] = await createOk(
      t,
      third.tenant,
      post(third.id, [{ content: '<p>Never sent</p>' }], { subreddit: 'HeraldTest', title: 'Never' }),
    );
    await t.settle();
    expect((await getPost(t, third.tenant, never!.postId)).errorKind).toBe('auth');
    expect((await listed(t, third.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: third.tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('Reddit refused to renew the access token');
  });

  it('a token Reddit no longer accepts while publishing disables the channel for reconnecting', async () => {
    const { tenant, id } = await connected();
    reddit.revokeAll();
    const [created] = await createOk(t, tenant, post(id, [{ content: '<p>Revoked</p>' }], { subreddit: 'HeraldTest', title: 'Revoked' }));
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).errorKind).toBe('auth');
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
  });

  it('reads scores and comment counts with /api/info, and the profile followers', async () => {
    const { tenant, id } = await connected();
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, id), {
      platformApps: t.services.channels.platformApps,
    });
    const ref = await redditProvider.publish(
      ctx,
      publishInput({ text: 'Numbers', settings: { subreddit: 'HeraldTest', title: 'Numbers' } }),
    );
    await redditProvider.comment(ctx, publishInput({ part: 1, text: 'A comment', parent: ref, root: ref }));
    reddit.things[0]!.score = 57;
    const readings = await redditProvider.metrics!.posts(ctx, [ref, { id: 't3_zzzzz' }]);
    expect([...readings.keys()]).toEqual([ref.id]);
    expect(readings.get(ref.id)).toEqual({ metrics: { score: 57, replies: 1 }, raw: { score: 57, num_comments: 1 } });
    expect(reddit.calls.find((c) => c.path === '/api/info')!.query.get('id')).toBe(`${ref.id},t3_zzzzz`);
    expect(await redditProvider.metrics!.account(ctx)).toEqual({ metrics: { followers: 12 }, raw: { subscribers: 12 } });
  });

  it('reads the account through the analytics route, renewing an expiring token first', async () => {
    reddit.expiresIn = 120;
    const { tenant, id } = await connected();
    reddit.expiresIn = 3600;
    reddit.followers = 31;
    const res = await refreshChannelNumbers(t, tenant, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { followers: 31 } });
    expect(reddit.refreshes).toBe(1);
  });

  it("sends the operator's REDDIT_USER_AGENT when set, else one in Reddit's form from the app's id", () => {
    const apps = t.services.channels.platformApps;
    expect(redditUserAgent(apps, 'someone')).toBe('server:reddit-client-id:1.0 (by /u/someone)');
    const own = {
      ...apps,
      apps: { ...apps.apps, reddit: { ...apps.apps.reddit, userAgent: 'web:com.example.herald:2.1 (by /u/operator)' } },
    };
    expect(redditUserAgent(own, 'someone')).toBe('web:com.example.herald:2.1 (by /u/operator)');
  });

  it('is unavailable without the operator app, naming the variables', async () => {
    const { NO_PLATFORM_APPS } = await import('../../helpers/providers.ts');
    expect(redditProvider.unavailable!(NO_PLATFORM_APPS)).toContain('REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET');
  });
});
