// How the Mastodon provider reports each way an instance fails, and how it counts text.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearMastodonInstances, mastodonProvider } from '../../../src/providers/mastodon/mastodon.provider.ts';
import { countMastodonText } from '../../../src/providers/mastodon/mastodon.text.ts';
import { closeOutboundClients, mediaItem, png, providerContext, publishInput } from '../bluesky/helpers.ts';
import { FakeMastodon } from './fake-mastodon.ts';
import { providerFailure } from '../../helpers/providers.ts';

let fake: FakeMastodon;
let token: string;
beforeAll(async () => {
  fake = await new FakeMastodon().start();
  token = fake.tokenFor('1');
});
beforeEach(() => {
  fake.reset();
  fake.processingPolls = 0;
  clearMastodonInstances();
});
afterAll(async () => {
  await fake.stop();
  await closeOutboundClients();
});

const ctx = () => providerContext({ instance: fake.url, accessToken: token });

const onStatuses = (answer: { status: number; body: unknown; headers?: Record<string, string> }) =>
  fake.on(({ path }) => (path === '/api/v1/statuses' ? answer : undefined));

describe('error mapping', () => {
  it('429 is rate_limited until X-RateLimit-Reset', async () => {
    onStatuses({
      status: 429,
      body: { error: 'Too many requests' },
      headers: { 'x-ratelimit-reset': new Date(Date.now() + 60_000).toISOString() },
    });
    const error = await providerFailure(mastodonProvider.publish(ctx(), publishInput()));
    expect(error.kind).toBe('rate_limited');
    expect(error.options.retryAfterMs).toBeGreaterThan(50_000);
    expect(error.options.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it("5xx is transient, 401/403 auth, 422 rejected with the instance's reason", async () => {
    onStatuses({ status: 503, body: { error: 'Service unavailable' } });
    expect((await providerFailure(mastodonProvider.publish(ctx(), publishInput()))).kind).toBe('transient');
    fake.reset();
    onStatuses({ status: 403, body: { error: 'Your login is currently disabled' } });
    expect((await providerFailure(mastodonProvider.publish(ctx(), publishInput()))).kind).toBe('auth');
    fake.reset();
    onStatuses({ status: 422, body: { error: 'Validation failed: Text character limit of 500 exceeded' } });
    const rejected = await providerFailure(mastodonProvider.publish(ctx(), publishInput()));
    expect(rejected).toMatchObject({ kind: 'rejected', options: { status: 422 } });
    expect(rejected.message).toContain('Text character limit');
    fake.reset();
    const revoked = await providerFailure(
      mastodonProvider.publish(providerContext({ instance: fake.url, accessToken: 'tok_revoked_revoked_revoked' }), publishInput()),
    );
    expect(revoked.kind).toBe('auth');
  });

  it('refuses before sending a status longer than the instance allows', async () => {
    fake.maxCharacters = 20;
    const before = fake.statuses.length;
    const error = await providerFailure(mastodonProvider.publish(ctx(), publishInput({ text: 'x'.repeat(21) })));
    expect(error.message).toContain('allows 20');
    expect(fake.statuses.length).toBe(before);
    fake.maxCharacters = 500;
  });

  it('waiting for a media file being processed stops when the publish is cancelled', async () => {
    fake.processingPolls = 1_000;
    fake.on(({ path }) => (path.startsWith('/api/v1/media/') ? { status: 206, body: { id: '1', type: 'image', url: null } } : undefined));
    const controller = new AbortController();
    const pending = mastodonProvider.publish({ ...ctx(), signal: controller.signal }, publishInput({ media: [mediaItem(png(4, 4))] }));
    // The wait between polls listens to the publish's signal: cut it short rather than sit through it.
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
  });
});

describe('idempotency', () => {
  it('the same post part sent twice is one status (Idempotency-Key)', async () => {
    const input = publishInput({ text: 'once' });
    const first = await mastodonProvider.publish(ctx(), input);
    const second = await mastodonProvider.publish(ctx(), input);
    expect(second.id).toBe(first.id);
    expect(fake.statuses.filter((s) => s.text === 'once')).toHaveLength(1);
    expect(mastodonProvider.idempotentWrites).toBe(true);
  });
});

describe('counting', () => {
  it('counts graphemes, a URL as 23 and a remote mention by its local part', () => {
    expect(countMastodonText('héllo 👩‍👩‍👧')).toBe(7);
    expect(countMastodonText(`see https://example.com/${'a'.repeat(100)}`)).toBe(4 + 23);
    expect(countMastodonText('hi @alice@example.social')).toBe('hi @alice'.length);
  });
});
