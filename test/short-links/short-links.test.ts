import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});

describe('short links', () => {
  it('replaces links in the published text with {BASE_URL}/s/{code}, a redirect that counts clicks', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now', shortLink: true }, [
        { content: '<p>Read <a href="https://example.com/a?b=1">this</a> and https://example.org/x.</p>' },
      ]),
    );
    await t.settle();
    const delivery = receiver.deliveries.find((d) => d.body.data.postId === created!.postId)!;
    const text = delivery.body.data.text as string;
    const links = text.match(/http:\/\/herald\.test\/s\/[0-9A-Za-z]{8}/g) ?? [];
    expect(links).toHaveLength(2);
    expect(text).not.toContain('example.com');
    expect(text).toMatch(/s\/[0-9A-Za-z]{8}\.$/);
    const code = links[0]!.split('/').pop()!;
    for (let i = 0; i < 3; i++) {
      const res = await t.request({ method: 'GET', url: `/s/${code}` });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('https://example.com/a?b=1');
    }
    expect(await t.services.shortLinks.clicks(code)).toBe(3);
    // The stored post keeps its original links.
    const post = (await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}`, key: tenant.key })).json();
    expect(post.content).toContain('https://example.com/a?b=1');
  });

  it('replaces each link where it stands: one that begins another (https://a.example, then https://a.example/x) leaves the other intact', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now', shortLink: true }, [
        { content: '<p>Home https://a.example then https://a.example/x and https://a.example again</p>' },
      ]),
    );
    await t.settle();
    const text = receiver.deliveries.find((d) => d.body.data.postId === created!.postId)!.body.data.text as string;
    const links = text.match(/http:\/\/herald\.test\/s\/[0-9A-Za-z]{8}/g) ?? [];
    expect(text.replace(/http:\/\/herald\.test\/s\/[0-9A-Za-z]{8}/g, 'LINK')).toBe('Home LINK then LINK and LINK again');
    const targets = [];
    for (const link of links) targets.push((await t.request({ method: 'GET', url: `/s/${link.split('/').pop()!}` })).headers.location);
    expect(targets).toEqual(['https://a.example', 'https://a.example/x', 'https://a.example']);
  });

  it('does not count HEAD requests, prefetches, missing user agents, crawlers and link-preview fetchers; they are still redirected', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now', shortLink: true }, [{ content: '<p>https://example.com/bots</p>' }]),
    );
    await t.settle();
    const text = receiver.deliveries.find((d) => d.body.data.postId === created!.postId)!.body.data.text as string;
    const code = /s\/([0-9A-Za-z]{8})/.exec(text)![1]!;
    const person = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
    const automated = [
      'http.rb/5.2.0 (Mastodon/4.3.2; +https://mastodon.social/)',
      'Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)',
      'facebookexternalhit/1.1',
      'Twitterbot/1.0',
      'TelegramBot (like TwitterBot)',
      'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
      'WhatsApp/2.23.20.0',
      'curl/8.5.0',
      'python-requests/2.32.3',
      '',
    ];
    for (const agent of automated) await t.app.inject({ method: 'GET', url: `/s/${code}`, headers: { 'user-agent': agent } });
    await t.app.inject({ method: 'HEAD', url: `/s/${code}`, headers: { 'user-agent': person } });
    await t.app.inject({ method: 'GET', url: `/s/${code}`, headers: { 'user-agent': person, purpose: 'prefetch' } });
    expect(await t.services.shortLinks.clicks(code)).toBe(0);
    const res = await t.app.inject({ method: 'GET', url: `/s/${code}`, headers: { 'user-agent': person } });
    expect(res.statusCode).toBe(302);
    expect(await t.services.shortLinks.clicks(code)).toBe(1);
  });

  it('leaves links alone without shortLink, and an unknown code is a 404', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>https://example.com/keep</p>' }]),
    );
    await t.settle();
    expect(receiver.deliveries.find((d) => d.body.data.postId === created!.postId)!.body.data.text).toBe('https://example.com/keep');
    expect((await t.request({ method: 'GET', url: '/s/ZZZZZZZZ' })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/s/..%2F..' })).statusCode).toBe(404);
  });
});
