import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { REGISTRATIONS_PER_HOUR, UNUSED_CLIENT_TTL_SECONDS } from '../../src/oauth/client-rules.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { issueOAuthToken, TEST_REDIRECT_URI } from '../helpers/oauth.ts';
import { createPerson } from './helpers.ts';

let t: TestApp;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock(new Date());
  t = await createTestApp({ clock });
});

const publicApp = {
  client_name: 'Notes app',
  redirect_uris: [TEST_REDIRECT_URI],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
};
const register = (app: TestApp, metadata: Record<string, unknown>) =>
  app.request({ method: 'POST', url: '/oauth/register', payload: { ...publicApp, ...metadata } });
const clientRows = () =>
  t.runtime.db.selectFrom('oauth_records').select(['client_id', 'expires_at']).where('model', '=', 'Client').execute();
/** A token request naming the client: invalid_client when there is no such client, invalid_grant when there is. */
const tokenError = async (clientId: string) =>
  (
    await t.request({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'svcr_nope', client_id: clientId }).toString(),
    })
  ).json().error as string;

describe('dynamic registration: every metadata field is bounded', () => {
  it('refuses a name past 100 characters, more than 10 redirect URIs, and any other field past its bound; stores none of them', async () => {
    const before = (await clientRows()).length;
    const refused: Record<string, [Record<string, unknown>, string]> = {
      'a 50,000-character name': [{ client_name: 'x'.repeat(50_000) }, 'client_name has at most 100 characters'],
      'a 101-character name': [{ client_name: 'x'.repeat(101) }, 'client_name has at most 100 characters'],
      '1,500 redirect URIs': [
        { redirect_uris: Array.from({ length: 1500 }, (_, i) => `http://127.0.0.1:9/${i}`) },
        'redirect_uris has at most 10',
      ],
      '11 redirect URIs': [
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:9/${i}`) },
        'redirect_uris has at most 10',
      ],
      'a 501-character redirect URI': [{ redirect_uris: [`https://app.example.test/${'p'.repeat(476)}`] }, 'at most 500 characters'],
      'a 501-character client_uri': [
        { client_uri: `https://app.example.test/${'p'.repeat(476)}` },
        'client_uri has at most 500 characters',
      ],
      '11 contacts': [{ contacts: Array.from({ length: 11 }, (_, i) => `dev${i}@example.test`) }, 'contacts has at most 10'],
      'metadata past 8 KiB': [
        { jwks: { keys: Array.from({ length: 4 }, (_, i) => ({ kty: 'RSA', kid: `k${i}`, e: 'AQAB', n: 'A'.repeat(2700) })) } },
        'at most 8192 bytes',
      ],
    };
    for (const [what, [metadata, reason]] of Object.entries(refused)) {
      const res = await register(t, metadata);
      expect(res.statusCode, what).toBe(400);
      expect(res.json(), what).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining(reason) });
    }
    expect((await clientRows()).length).toBe(before);
    // At the bounds, accepted.
    const fits = await register(t, {
      client_name: 'x'.repeat(100),
      redirect_uris: Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:9/${i}`),
      client_uri: `https://app.example.test/${'p'.repeat(475)}`,
    });
    expect(fits.statusCode, fits.body).toBe(201);
    // Registrations are not managed afterwards (RFC 7592): no registration access token is stored for good.
    expect(fits.json().registration_access_token).toBeUndefined();
    expect(
      await t.runtime.db.selectFrom('oauth_records').select('id_hash').where('model', '=', 'RegistrationAccessToken').execute(),
    ).toEqual([]);
  });
});

describe('reserved names', () => {
  it("no app registered dynamically may be named like Herald's own, however it is written", async () => {
    for (const name of [
      'Herald command line',
      'herald CLI',
      'H.E.R.A.L.D',
      'Ｈｅｒａｌｄ command line',
      '\u041D\u0435r\u0430ld command line',
      'HERAId CLI',
      'The Herald app',
    ]) {
      const res = await register(t, {
        client_name: name,
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
        response_types: [],
        redirect_uris: [],
      });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().error_description, name).toContain('reserved');
    }
  });
});

describe('registration rate limit', () => {
  it(`allows ${REGISTRATIONS_PER_HOUR} registrations an hour per client address, then 429 with Retry-After`, async () => {
    const app = await createTestApp();
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i += 1) expect((await register(app, {})).statusCode).toBe(201);
    const refused = await register(app, {});
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    // Refused before it is stored.
    expect((await app.runtime.db.selectFrom('oauth_records').select('id_hash').where('model', '=', 'Client').execute()).length).toBe(
      REGISTRATIONS_PER_HOUR,
    );
  });

  it.runIf(BACKEND === 'postgres')('is counted across the processes of a deployment (the shared store)', async () => {
    const first = await createTestApp();
    const second = await createTestApp({ reopen: first });
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i += 1) expect((await register(i % 2 ? first : second, {})).statusCode).toBe(201);
    expect((await register(first, {})).statusCode).toBe(429);
    expect((await register(second, {})).statusCode).toBe(429);
  });
});

describe('apps registered dynamically that nobody allowed', () => {
  it(`are deleted ${UNUSED_CLIENT_TTL_SECONDS / 3600} hours after their registration; an allowed one, and one from the developer settings, stay`, async () => {
    const person = await createPerson(t);
    const unused = (await register(t, {})).json().client_id as string;
    const allowed = (await register(t, {})).json().client_id as string;
    await issueOAuthToken(t, { userId: person.userId, workspaceId: person.workspaceId, scopes: ['posts:read'], clientId: allowed });
    const own = (
      await t.services.oauth.registerApp(person.userId, { name: 'Own app', redirectUris: [TEST_REDIRECT_URI], confidential: false })
    ).app.clientId;
    for (const clientId of [unused, allowed, own]) expect(await tokenError(clientId), clientId).toBe('invalid_grant');

    clock.advance(UNUSED_CLIENT_TTL_SECONDS * 1000 - 1000);
    expect(await tokenError(unused)).toBe('invalid_grant');
    clock.advance(1000);
    // Gone at lookup at once, whatever the sweep.
    expect(await tokenError(unused)).toBe('invalid_client');
    expect(await tokenError(allowed)).toBe('invalid_grant');
    expect(await tokenError(own)).toBe('invalid_grant');
    // And removed from the database by the next sweep (any write of the authorization server).
    const later = (await register(t, {})).json().client_id as string;
    const rows = new Map((await clientRows()).map((row) => [row.client_id, row.expires_at]));
    expect(rows.has(unused)).toBe(false);
    expect(rows.get(allowed)).toBeNull();
    expect(rows.get(own)).toBeNull();
    expect(Number(rows.get(later))).toBe(Math.floor(clock.now().getTime() / 1000) + UNUSED_CLIENT_TTL_SECONDS);
  });
});
