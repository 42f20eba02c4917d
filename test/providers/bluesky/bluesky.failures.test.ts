// How the Bluesky provider reports each way Bluesky fails, against a local fake XRPC server.
import net from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blueskyProvider } from '../../../src/providers/bluesky/bluesky.provider.ts';
import { clearBlueskySessions } from '../../../src/providers/bluesky/bluesky.client.ts';
import { recordKeyFor } from '../../../src/providers/bluesky/record-key.ts';
import { ProviderError } from '../../../src/providers/provider.ts';
import { FakeXrpc } from './fake-xrpc.ts';
import { closeOutboundClients, mediaItem, png, providerContext, publishInput } from './helpers.ts';

let fake: FakeXrpc;

beforeEach(async () => {
  fake = await new FakeXrpc().start();
});
afterEach(async () => {
  clearBlueskySessions();
  await fake.stop();
});
afterAll(() => closeOutboundClients());

const config = () => ({ service: fake.url, identifier: fake.account.handle, appPassword: fake.account.appPassword });

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('happy path against the fake', () => {
  it('signs in once per channel and reuses the session for later publishes', async () => {
    const ctx = providerContext(config());
    await blueskyProvider.publish(ctx, publishInput({ text: 'one' }));
    await blueskyProvider.publish(ctx, publishInput({ text: 'two' }));
    expect(fake.calls('com.atproto.server.createSession')).toHaveLength(1);
    expect(fake.calls('com.atproto.repo.createRecord')).toHaveLength(2);
  });

  it("signs in again when the channel's configuration changes", async () => {
    const channelId = 'ch_same';
    await blueskyProvider.publish(providerContext(config(), { channelId }), publishInput());
    await blueskyProvider.publish(providerContext({ ...config(), identifier: fake.account.did }, { channelId }), publishInput());
    expect(fake.calls('com.atproto.server.createSession').map((r) => JSON.parse(r.body.toString()).identifier)).toEqual([
      fake.account.handle,
      fake.account.did,
    ]);
  });

  it('suggests mentions with the searchMentions tool', async () => {
    const result = await blueskyProvider.tools.searchMentions!.run(providerContext(config()), { q: 'bo' });
    expect(result).toEqual({
      actors: [{ did: 'did:plc:fakebob00000000000000000000', handle: 'bob.test', displayName: 'bob', avatar: null }],
    });
    expect(fake.calls('app.bsky.actor.searchActorsTypeahead')[0]!.query.get('limit')).toBe('8');
  });
});

describe('rate limits', () => {
  it('429 with RateLimit-* headers is rate_limited, waiting until RateLimit-Reset (epoch seconds)', async () => {
    const reset = Math.floor(Date.now() / 1000) + 42;
    fake.on('com.atproto.repo.createRecord', () => ({
      status: 429,
      headers: {
        'ratelimit-limit': '5000',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(reset),
        'ratelimit-policy': '5000;w=3600',
      },
      body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
    }));
    const error = await failure(blueskyProvider.publish(providerContext(config()), publishInput()));
    expect(error.kind).toBe('rate_limited');
    expect(error.options.status).toBe(429);
    expect(error.options.retryAfterMs).toBeGreaterThan(40_000);
    expect(error.options.retryAfterMs).toBeLessThanOrEqual(42_000);
    expect(error.message).toMatch(/Rate Limit Exceeded/);
  });

  it('429 with Retry-After (seconds) is rate_limited with that delay', async () => {
    fake.on('com.atproto.server.createSession', () => ({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: 'RateLimitExceeded', message: 'Too many logins' },
    }));
    const error = await failure(blueskyProvider.publish(providerContext(config()), publishInput()));
    expect(error).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 7000 } });
  });
});

describe('server errors', () => {
  it.each([500, 502, 503])('%i on createRecord is transient (after checking the key holds no record)', async (status) => {
    fake.on('com.atproto.repo.createRecord', () => ({
      status,
      body: { error: 'InternalServerError', message: `upstream said ${status}` },
    }));
    const error = await failure(blueskyProvider.publish(providerContext(config()), publishInput()));
    expect(error).toMatchObject({ kind: 'transient', options: { status } });
    expect(fake.calls('com.atproto.repo.getRecord')).toHaveLength(1);
  });

  it('a 500 on a key that already holds the record answers that record (a retry after success)', async () => {
    const ctx = providerContext(config());
    const input = publishInput({ text: 'once' });
    const first = await blueskyProvider.publish(ctx, input);
    const again = await blueskyProvider.publish(ctx, input);
    expect(again).toEqual(first);
    expect(fake.records.size).toBe(1);
    expect(fake.calls('com.atproto.repo.createRecord')).toHaveLength(2);
  });

  it('502 while resolving a mention is transient, not a silently dropped mention', async () => {
    fake.on('com.atproto.identity.resolveHandle', () => ({ status: 502, body: { error: 'UpstreamFailure', message: 'appview down' } }));
    const error = await failure(blueskyProvider.publish(providerContext(config()), publishInput({ text: 'hi @bob.test' })));
    expect(error).toMatchObject({ kind: 'transient', options: { status: 502 } });
    expect(fake.calls('com.atproto.repo.createRecord')).toHaveLength(0);
  });

  it("400 InvalidRequest on createRecord is rejected with Bluesky's message", async () => {
    fake.on('com.atproto.repo.createRecord', () => ({
      status: 400,
      body: { error: 'InvalidRequest', message: 'Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes' },
    }));
    const error = await failure(blueskyProvider.publish(providerContext(config()), publishInput()));
    expect(error.kind).toBe('rejected');
    expect(error.options.status).toBe(400);
    expect(error.message).toContain('InvalidRequest: Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes');
  });

  it('a comment whose parent cannot be found (RecordNotFound) is rejected; one without a parent too', async () => {
    const ctx = providerContext(config());
    const missing = { id: `at://${fake.account.did}/app.bsky.feed.post/3jzfcijpj2z2a` };
    const error = await failure(blueskyProvider.comment(ctx, publishInput({ part: 1, parent: missing, root: missing })));
    expect(error).toMatchObject({ kind: 'rejected', options: { status: 400 } });
    expect(error.message).toMatch(/RecordNotFound/);
    await expect(blueskyProvider.comment(ctx, publishInput({ part: 1 }))).rejects.toMatchObject({ kind: 'rejected' });
    await expect(
      blueskyProvider.comment(ctx, publishInput({ part: 1, parent: { id: 'https://bsky.app/profile/x/post/y' } })),
    ).rejects.toMatchObject({ kind: 'rejected' });
    expect(fake.calls('com.atproto.repo.createRecord')).toHaveLength(0);
  });

  it('413 on uploadBlob is rejected', async () => {
    fake.on('com.atproto.repo.uploadBlob', () => ({
      status: 413,
      body: { error: 'PayloadTooLarge', message: 'request entity too large' },
    }));
    const error = await failure(blueskyProvider.publish(providerContext(config()), publishInput({ media: [mediaItem(png(4, 4))] })));
    expect(error).toMatchObject({ kind: 'rejected', options: { status: 413 } });
  });
});

describe('sessions and credentials', () => {
  it('ExpiredToken: refreshes the session, repeats the call, and keeps the new session', async () => {
    const ctx = providerContext(config());
    await blueskyProvider.publish(ctx, publishInput());
    fake.expireAccessTokens();
    const ref = await blueskyProvider.publish(ctx, publishInput({ text: 'after refresh' }));
    expect(ref.id).toMatch(/^at:\/\//);
    expect(fake.calls('com.atproto.server.refreshSession')).toHaveLength(1);
    expect(fake.calls('com.atproto.server.createSession')).toHaveLength(1);
    await blueskyProvider.publish(ctx, publishInput({ text: 'third' }));
    expect(fake.calls('com.atproto.server.refreshSession')).toHaveLength(1);
    // First publish, the refused attempt, the repeat with the refreshed token, the third publish.
    const [a, expired, refreshed, later] = fake.calls('com.atproto.repo.createRecord').map((r) => r.token);
    expect(expired).toBe(a);
    expect(refreshed).not.toBe(a);
    expect(later).toBe(refreshed);
    expect(fake.records.size).toBe(3);
  });

  it('401 ExpiredToken with a refused refresh token: signs in again with the app password', async () => {
    const ctx = providerContext(config());
    await blueskyProvider.publish(ctx, publishInput());
    fake.expireAccessTokens();
    fake.refresh.clear();
    fake.on('com.atproto.repo.createRecord', (req, next) =>
      fake.access.has(req.token ?? '') ? next() : { status: 401, body: { error: 'ExpiredToken', message: 'Token has expired' } },
    );
    await blueskyProvider.publish(ctx, publishInput({ text: 'after new login' }));
    expect(fake.calls('com.atproto.server.createSession')).toHaveLength(2);
    expect(fake.records.size).toBe(2);
  });

  it('an invalid app password (401 AuthenticationRequired) is auth', async () => {
    const error = await failure(
      blueskyProvider.publish(providerContext({ ...config(), appPassword: 'zzzz-zzzz-zzzz-zzzz' }), publishInput()),
    );
    expect(error).toMatchObject({ kind: 'auth', options: { status: 401 } });
    expect(error.message).toMatch(/Invalid identifier or password/);
  });

  it('a taken-down account (400 AccountTakedown) is auth', async () => {
    fake.on('com.atproto.server.createSession', () => ({
      status: 400,
      body: { error: 'AccountTakedown', message: 'Account has been taken down' },
    }));
    await expect(blueskyProvider.publish(providerContext(config()), publishInput())).rejects.toMatchObject({ kind: 'auth' });
  });

  it('a configuration that does not parse is auth (the channel needs reconnecting), before any request', async () => {
    await expect(
      blueskyProvider.publish(providerContext({ ...config(), appPassword: 'my main password' }), publishInput()),
    ).rejects.toMatchObject({ kind: 'auth' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('network failures', () => {
  it("a createRecord that hangs past the timeout is unknown_outcome (and the provider's writes are idempotent)", async () => {
    fake.on('com.atproto.repo.createRecord', () => 'hang');
    const ctx = providerContext(config(), { outbound: { timeoutMs: 400 } });
    const input = publishInput();
    const error = await failure(blueskyProvider.publish(ctx, input));
    expect(error.kind).toBe('unknown_outcome');
    expect(blueskyProvider.idempotentWrites).toBe(true);
    // It looked under the part's key before giving up.
    expect(fake.calls('com.atproto.repo.getRecord')[0]!.query.get('rkey')).toBe(recordKeyFor(input));
  });

  it('a connection cut after createRecord was sent is unknown_outcome', async () => {
    fake.on('com.atproto.repo.createRecord', () => 'destroy');
    const error = await failure(blueskyProvider.publish(providerContext(config()), publishInput()));
    expect(error.kind).toBe('unknown_outcome');
  });

  it('an upload that hangs is transient: uploading again cannot duplicate anything', async () => {
    fake.on('com.atproto.repo.uploadBlob', () => 'hang');
    const ctx = providerContext(config(), { outbound: { timeoutMs: 400 } });
    const error = await failure(blueskyProvider.publish(ctx, publishInput({ media: [mediaItem(png(4, 4))] })));
    expect(error.kind).toBe('transient');
    expect(fake.calls('com.atproto.repo.createRecord')).toHaveLength(0);
  });

  it('an answer over the size limit is not read into memory: transient for a read', async () => {
    fake.on('com.atproto.server.getSession', () => ({
      status: 200,
      body: { handle: 'alice.test', did: fake.account.did, padding: 'x'.repeat(3 * 1024 * 1024) },
    }));
    const error = await failure(blueskyProvider.tools.whoami!.run(providerContext(config()), {}));
    expect(error.kind).toBe('transient');
    expect(error.message).toMatch(/larger than/);
  });

  it('connection refused is transient', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(
      blueskyProvider.publish(providerContext({ ...config(), service: `http://127.0.0.1:${port}` }), publishInput()),
    );
    expect(error.kind).toBe('transient');
    expect(error.message).toMatch(/Could not reach Bluesky/);
  });

  it('a service on an address the outbound policy refuses is a rejection, not an authentication failure (reconnect with a public PDS)', async () => {
    const ctx = providerContext(config(), { outbound: { allowLoopback: false } });
    const error = await failure(blueskyProvider.publish(ctx, publishInput()));
    expect(error.kind).toBe('rejected');
    expect(error.message).toMatch(/OUTBOUND_ALLOW_LOOPBACK=true/);
    expect(error.message).toMatch(/will not connect/);
    expect(fake.requests).toHaveLength(0);
  });

  it('an abort from the engine while createRecord is in flight is unknown_outcome', async () => {
    fake.on('com.atproto.repo.createRecord', () => 'hang');
    const controller = new AbortController();
    const ctx = providerContext(config(), { signal: controller.signal });
    const pending = blueskyProvider.publish(ctx, publishInput());
    const timer = setInterval(() => {
      if (fake.calls('com.atproto.repo.createRecord').length > 0) controller.abort();
    }, 10);
    try {
      const error = await failure(pending);
      expect(error.kind).toBe('unknown_outcome');
    } finally {
      clearInterval(timer);
    }
  });
});
