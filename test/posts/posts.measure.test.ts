// POST /public/v1/posts/measure: a thread's text as each channel's platform receives and counts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postContentToHtml } from '../../src/content/html.ts';
import { getProvider } from '../../src/providers/registry.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type Tenant, type TestApp } from '../helpers/app.ts';
import { createOk, postBody } from '../helpers/posts.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Measured = {
  channels: Array<{
    integration: string;
    identifier: string;
    unit: string;
    parts: Array<{ length: number; max: number; over: boolean; text?: string }>;
  }>;
};

/** A workspace with an X, a Mastodon (its instance allowing 500), a DEV (Markdown) and a webhook (plain text) channel. */
async function workspace(options: Parameters<typeof createTenant>[1] = {}) {
  const tenant = await createTenant(t, options);
  const make = (provider: string, config: Record<string, unknown>) =>
    t.services.channels.create(tenant.workspaceId, { provider, name: provider, config }).then((c) => c.id);
  return {
    tenant,
    x: await make('x', { accessToken: 'x-access-token-for-tests', userId: '12345', username: 'herald' }),
    mastodon: await make('mastodon', {
      instance: 'https://mastodon.example',
      accessToken: 'mastodon-access-token-for-tests',
      maxCharacters: 500,
    }),
    devto: await make('devto', { apiKey: 'devto-api-key-for-tests' }),
    hook: await make('webhook', { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET }),
  };
}

function measure(tenant: Pick<Tenant, 'key'>, body: unknown) {
  return t.request({ method: 'POST', url: '/public/v1/posts/measure', key: tenant.key, payload: body as Record<string, unknown> });
}

async function measured(tenant: Pick<Tenant, 'key'>, body: unknown): Promise<Measured> {
  const res = await measure(tenant, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const LONG_URL = `https://example.com/articles/${'a'.repeat(120)}`;

describe('POST /posts/measure', () => {
  it('counts a long link as 23 on X and Mastodon, and as written on a platform that counts characters', async () => {
    const w = await workspace();
    const body = { integrations: [w.x, w.mastodon, w.hook], value: [{ content: `<p>Read ${LONG_URL}</p>` }] };
    const { channels } = await measured(w.tenant, body);
    expect(channels.map((c) => [c.integration, c.identifier, c.unit, c.parts])).toEqual([
      [w.x, 'x', 'characters', [{ length: 5 + 23, max: 280, over: false }]],
      [w.mastodon, 'mastodon', 'graphemes', [{ length: 5 + 23, max: 500, over: false }]],
      [w.hook, 'webhook', 'characters', [{ length: 5 + LONG_URL.length, max: expect.any(Number), over: false }]],
    ]);
  });

  it('counts a remote Mastodon mention by its local part', async () => {
    const w = await workspace();
    const { channels } = await measured(w.tenant, {
      integrations: [w.mastodon, w.hook],
      value: [{ content: 'Thanks @alice@social.example.org!' }],
    });
    expect(channels[0]!.parts[0]!.length).toBe('Thanks @alice!'.length);
    expect(channels[1]!.parts[0]!.length).toBe('Thanks @alice@social.example.org!'.length);
  });

  it("answers each platform's text and length: Markdown and plain text differ for the same HTML, each as the publish converts it", async () => {
    const w = await workspace();
    const html = '<p><strong>Bold</strong> and <a href="https://example.com/page">a link</a></p><ul><li>one</li><li>two</li></ul>';
    const { channels } = await measured(w.tenant, { integrations: [w.devto, w.hook], value: [{ content: html }], withText: true });
    const [devto, hook] = channels;
    for (const [channel, provider] of [
      [devto!, 'devto'],
      [hook!, 'webhook'],
    ] as const) {
      // The same conversion and count the readiness check and the publish use.
      const text = getProvider(provider).toText(postContentToHtml(html));
      expect(channel.parts).toEqual([{ text, length: getProvider(provider).countText(text), max: expect.any(Number), over: false }]);
    }
    expect(devto!.parts[0]!.text).toContain('**Bold**');
    expect(devto!.parts[0]!.text).toContain('[a link](https://example.com/page)');
    expect(hook!.parts[0]!.text).not.toContain('**');
    expect(devto!.parts[0]!.length).not.toBe(hook!.parts[0]!.length);
    // Without `withText`, no text.
    const plain = await measured(w.tenant, { integrations: [w.devto], value: [{ content: html }] });
    expect(plain.channels[0]!.parts[0]).not.toHaveProperty('text');
  });

  it("measures every part against the channel's limit with the post's settings; `over` agrees with the readiness check", async () => {
    const w = await workspace();
    const long = 'y'.repeat(300);
    const value = [{ content: 'short' }, { content: long }];
    const { channels } = await measured(w.tenant, { integrations: [w.x], value });
    expect(channels[0]!.parts).toEqual([
      { length: 5, max: 280, over: false },
      { length: 300, max: 280, over: true },
    ]);
    const premium = await measured(w.tenant, { integrations: [w.x], value, settings: { [w.x]: { longPosts: true } } });
    expect(premium.channels[0]!.parts[1]).toEqual({ length: 300, max: 25_000, over: false });

    const [draft] = await createOk(t, w.tenant, postBody(w.x, { type: 'draft' }, [{ content: long }]));
    const missing = await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}/missing`, key: w.tenant.key });
    expect(missing.json().missing).toEqual([expect.objectContaining({ field: 'value[0].content' })]);
  });

  it('refuses bad input with 400: no channel, a channel twice, too many parts, too much content', async () => {
    const w = await workspace();
    const cases = [
      { integrations: [], value: [{ content: 'a' }] },
      { integrations: [w.x, w.x], value: [{ content: 'a' }] },
      { integrations: Array.from({ length: 21 }, (_, i) => `c${i}`), value: [{ content: 'a' }] },
      { integrations: [w.x], value: [] },
      { integrations: [w.x], value: Array.from({ length: 27 }, () => ({ content: 'a' })) },
      { integrations: [w.x], value: [{ content: 'a'.repeat(100_001) }] },
      { integrations: [w.x], value: [{ content: 'a'.repeat(20_001) }] },
      { integrations: [w.x], value: [{ content: 'a'.repeat(12_000) }, { content: 'b'.repeat(12_000) }] },
    ];
    for (const body of cases) {
      const res = await measure(w.tenant, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    const total = await measure(w.tenant, cases.at(-1));
    expect(JSON.stringify(total.json())).toContain('at most 20000 are measured at once');
  });

  it("answers 404 for another workspace's channel and for one outside a channel-limited key; 403 without posts:read", async () => {
    const w = await workspace();
    const other = await workspace();
    const foreign = await measure(w.tenant, { integrations: [w.x, other.x], value: [{ content: 'a' }] });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toContain(other.x);

    const limited = await createTenant(t, { workspaceId: w.tenant.workspaceId, channelIds: [w.x] });
    expect((await measure(limited, { integrations: [w.mastodon], value: [{ content: 'a' }] })).statusCode).toBe(404);
    expect((await measured(limited, { integrations: [w.x], value: [{ content: 'a' }] })).channels).toHaveLength(1);

    const drafter = await createTenant(t, { workspaceId: w.tenant.workspaceId, scopes: ['posts:draft'] });
    const refused = await measure(drafter, { integrations: [w.x], value: [{ content: 'a' }] });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:read' });
  });
});

runAuthMatrix(() => t, {
  method: 'POST',
  url: () => '/public/v1/posts/measure',
  // A channel no workspace has: past authentication, the answer is 404.
  body: { integrations: ['no-such-channel'], value: [{ content: 'a' }] },
  scope: 'posts:read',
  okStatus: 404,
});
