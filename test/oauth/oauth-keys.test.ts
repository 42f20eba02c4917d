import { createHmac } from 'node:crypto';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { deploymentKeys, KEY_RETENTION } from '../../src/oauth/oauth-keys.ts';
import { KEYS_CHECK_INTERVAL_MS } from '../../src/oauth/oauth.service.ts';
import { authorize, codeFlow, CookieJar, createPerson, registerClient, startOAuthServer, type OAuthServer } from './helpers.ts';

let s: OAuthServer;
beforeAll(async () => {
  s = await startOAuthServer();
});

const kids = async () => ((await (await fetch(`${s.origin}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; d?: string }> }).keys;
/** The signature keygrip (the library's cookie signer) gives `name=value` with `key`. */
const cookieSignature = (name: string, value: string, key: string) =>
  createHmac('sha1', key).update(`${name}=${value}`).digest('base64url');

describe("rotating the authorization server's keys (herald admin oauth rotate-keys)", () => {
  it('signs with the new keys from then on, while what the old ones signed keeps working', async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin);
    const before = await kids();
    expect(before).toHaveLength(1);
    expect(before[0]!.d).toBeUndefined();
    const tokens = await codeFlow(config, new CookieJar(person.sessionToken), { scope: 'posts:read', workspaceId: person.workspaceId });

    // Someone is half-way: their authorization started (its cookies signed with the old key).
    const jar = new CookieJar(person.sessionToken);
    const verifier = client.randomPKCECodeVerifier();
    const start = await jar.fetch(
      client.buildAuthorizationUrl(config, {
        redirect_uri: 'http://127.0.0.1:9/callback',
        scope: 'posts:read',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).href,
    );
    expect(start.status).toBe(303);
    const oldCookieKey = (await deploymentKeys(s.t.runtime.db)).cookieKeys[0]!;

    const rotated = await s.t.services.oauth.rotateKeys();
    expect(rotated).toMatchObject({ signingKeys: 2, cookieKeys: 2, dropped: { signing: 0, cookie: 0 } });
    // A running process picks the new keys up at its next check.
    s.clock.advance(KEYS_CHECK_INTERVAL_MS);
    const after = await kids();
    expect(after.map((k) => k.kid)).toEqual([rotated.signingKeyId, before[0]!.kid]);

    // The half-way authorization completes: the old cookie key still verifies.
    const interaction = new URL(start.headers.get('location')!, s.origin).href;
    const page = await jar.fetch(interaction);
    const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(await page.text())![1]!;
    const answer = await jar.fetch(interaction, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, workspace: person.workspaceId, decision: 'allow' }).toString(),
    });
    expect(answer.status).toBe(303);
    const resume = await jar.fetch(new URL(answer.headers.get('location')!, s.origin).href);
    expect(resume.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);

    // The token issued before the rotation still works; a new flow works, its cookies signed with the new key.
    expect((await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      200,
    );
    const fresh = new CookieJar(person.sessionToken);
    const { callback } = await authorize(config, fresh, { scope: 'posts:read', workspaceId: person.workspaceId });
    expect(callback.searchParams.get('code')).toBeTruthy();
    const [newCookieKey] = (await deploymentKeys(s.t.runtime.db)).cookieKeys;
    const signed = [...fresh.cookies].filter(([name]) => fresh.cookies.has(`${name}.sig`) && !name.endsWith('.sig'));
    expect(signed.length).toBeGreaterThan(0);
    for (const [name, value] of signed) {
      expect(fresh.cookies.get(`${name}.sig`)).toBe(cookieSignature(name, value, newCookieKey!));
      expect(fresh.cookies.get(`${name}.sig`)).not.toBe(cookieSignature(name, value, oldCookieKey));
    }

    // Once what the old signing key signed has expired, the next rotation drops it; cookie keys live longer.
    s.clock.advance(KEY_RETENTION.signing * 1000);
    const again = await s.t.services.oauth.rotateKeys();
    expect(again).toMatchObject({ signingKeys: 2, cookieKeys: 3, dropped: { signing: 1, cookie: 0 } });
    s.clock.advance(KEYS_CHECK_INTERVAL_MS);
    expect((await kids()).map((k) => k.kid)).toEqual([again.signingKeyId, rotated.signingKeyId]);
  });
});
