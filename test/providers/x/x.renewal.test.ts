// Renewing an X channel's access token across processes. X's refresh tokens are single-use, so
// two workers renewing the same channel at once would see the second renewal refused and the
// channel disabled for nothing. Two engines, each started on its own runtime (so they share
// nothing but the database and, on PostgreSQL, Redis), publish to the same channel whose token
// expires soon; the local X refuses a spent refresh token and counts every refresh request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialRenewals } from '../../../src/channels/credential-renewal.ts';
import { ManualClock } from '../../../src/lib/clock.ts';
import { ProviderError } from '../../../src/providers/provider.ts';
import { closeOutboundClients } from '../bluesky/helpers.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { createOk, getPost, postBody } from '../../helpers/posts.ts';
import { FakeX } from '../oauth/fake-x.ts';
import { listed, signInThroughApi } from '../oauth/sign-in.ts';

let x: FakeX;
let a: TestApp;
let b: TestApp;
/** Which engines have tried to take a channel's renewal claim, and a wait for both to have. */
const claimsTried = new Set<'a' | 'b'>();
let bothTried: (() => void) | null = null;
const watchClaims = (engine: 'a' | 'b') => (query: { sql: string }) => {
  if (!/^update "channels" set "renewing_until"/i.test(query.sql)) return;
  claimsTried.add(engine);
  if (claimsTried.size === 2) bothTried?.();
};

beforeAll(async () => {
  x = await new FakeX().start();
  const env = { OUTBOUND_ALLOW_LOOPBACK: 'true', X_CLIENT_ID: x.clientId, X_CLIENT_SECRET: x.clientSecret, X_API_BASE: x.url };
  // One job at a time each: while one engine is held in its renewal, the other takes the next post.
  a = await createTestApp({ engine: true, engineConcurrency: 1, env, onQuery: watchClaims('a') });
  b = await createTestApp({ engine: true, engineConcurrency: 1, env, reopen: a, onQuery: watchClaims('b') });
});
beforeEach(() => {
  x.reset();
  claimsTried.clear();
});
afterAll(async () => {
  await closeOutboundClients();
  await b?.close();
  await a?.close();
  await x.stop();
});

async function expiringChannel(): Promise<{ tenant: Tenant; id: string }> {
  x.expiresIn = 120;
  const tenant = await createTenant(a);
  const { channels } = await signInThroughApi(a, tenant, { provider: 'x' });
  x.expiresIn = 7200;
  return { tenant, id: channels[0]!.id };
}

const body = (id: string, text: string) => ({
  ...postBody(id, { type: 'now' }),
  posts: [{ integration: { id }, value: [{ content: `<p>${text}</p>` }], settings: { __type: 'x' } }],
});

describe('renewing credentials across processes', () => {
  it('two engines publishing to the same channel at once renew its token once; both posts go out and the channel stays enabled', async () => {
    const { tenant, id } = await expiringChannel();
    const held = x.holdRefreshes();
    const tried = new Promise<void>((resolve) => (bothTried = resolve));
    const [one] = await createOk(a, tenant, body(id, 'From the first engine'));
    const [two] = await createOk(b, tenant, body(id, 'From the second engine'));
    // The refresh is answered only once a renewal is at X and both engines have tried to claim the channel's renewal.
    await held.arrived;
    await tried;
    held.release();
    await Promise.all([a.settle(), b.settle()]);
    for (const post of [one, two]) expect((await getPost(a, tenant, post!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(x.refreshCalls).toBe(1);
    expect(x.tweets.map((tw) => tw.text).sort()).toEqual(['From the first engine', 'From the second engine']);
    expect((await listed(a, tenant))[0]).toMatchObject({ disabled: false });
    // Both engines stored and used the renewed token: the channel's stored token is the one X issued last.
    const stored = await b.services.channels.config(tenant.workspaceId, id);
    expect(Date.parse(String(stored.expiresAt)) - Date.now()).toBeGreaterThan(3600_000);
    expect(
      await a.runtime.db.selectFrom('channels').select(['renewing_until', 'renewing_by']).where('id', '=', id).executeTakeFirstOrThrow(),
    ).toEqual({ renewing_until: null, renewing_by: null });
  });

  it('a publish holding the old token after another engine renewed uses the stored renewal instead of renewing again', async () => {
    const { tenant, id } = await expiringChannel();
    const [first] = await createOk(a, tenant, body(id, 'Renews'));
    await a.settle();
    expect((await getPost(a, tenant, first!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(x.refreshCalls).toBe(1);
    // The second engine's renewal starts from the configuration read before the renewal (what a claim read earlier holds).
    const { config: old } = await b.services.channels.withConfig(tenant.workspaceId, id);
    const stale = {
      ...old,
      accessToken: 'spent-access-token',
      refreshToken: 'spent-refresh-token',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
    const used = await b.services.channels.renewals.renew(id, stale, {
      due: (config) => Date.parse(String(config.expiresAt)) - Date.now() < 600_000,
      renew: () => Promise.reject(new Error('must not renew again')),
    });
    expect(used).toEqual(old);
    expect(x.refreshCalls).toBe(1);
  });
});

describe('the renewal claim', () => {
  it('makes a second renewer wait a bounded time while it is held, and lapses by the clock when its holder crashed', async () => {
    const { tenant, id } = await expiringChannel();
    const clock = new ManualClock(new Date());
    const renewals = new CredentialRenewals(
      { db: a.runtime.db, clock, secretBox: a.runtime.secretBox },
      { claimMs: 60_000, pollMs: 0, maxPolls: 3 },
    );
    const current = await a.services.channels.config(tenant.workspaceId, id);
    // A renewer that crashed while holding the claim.
    await a.runtime.db
      .updateTable('channels')
      .set({ renewing_until: new Date(clock.now().getTime() + 60_000).toISOString(), renewing_by: 'crashed' })
      .where('id', '=', id)
      .execute();
    let renewed = 0;
    const renewal = {
      due: () => true,
      renew: async (config: Record<string, unknown>) => ({ ...config, accessToken: `renewed-${++renewed}-access` }),
    };
    const waited = await renewals.renew(id, current, renewal).then(
      () => null,
      (error: unknown) => error,
    );
    expect(waited).toBeInstanceOf(ProviderError);
    expect(waited).toMatchObject({ kind: 'transient', message: expect.stringContaining('Another Herald worker is still renewing') });
    expect(renewed).toBe(0);

    clock.advance(60_001);
    const fresh = await renewals.renew(id, current, renewal);
    expect(fresh.accessToken).toBe('renewed-1-access');
    expect(renewed).toBe(1);
    expect(await a.services.channels.config(tenant.workspaceId, id)).toEqual(fresh);
    expect(
      await a.runtime.db.selectFrom('channels').select(['renewing_until', 'renewing_by']).where('id', '=', id).executeTakeFirstOrThrow(),
    ).toEqual({ renewing_until: null, renewing_by: null });
  });

  it('a refused renewal lets go of the claim, so the next publish does not wait for it to lapse', async () => {
    const { tenant, id } = await expiringChannel();
    const renewals = new CredentialRenewals(
      { db: a.runtime.db, clock: a.runtime.clock, secretBox: a.runtime.secretBox },
      { pollMs: 0, maxPolls: 0 },
    );
    const current = await a.services.channels.config(tenant.workspaceId, id);
    const refused = await renewals
      .renew(id, current, { due: () => true, renew: () => Promise.reject(new ProviderError('auth', 'refused')) })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ kind: 'auth' });
    const again = await renewals.renew(id, current, {
      due: () => true,
      renew: async (config) => ({ ...config, accessToken: 'renewed-access' }),
    });
    expect(again.accessToken).toBe('renewed-access');
  });
});
