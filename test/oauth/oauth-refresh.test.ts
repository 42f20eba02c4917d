import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeFlow, CookieJar, createPerson, registerClient, startOAuthServer, type OAuthServer } from './helpers.ts';

let s: OAuthServer;
beforeAll(async () => {
  s = await startOAuthServer();
});

const restStatus = async (token: string) => (await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })).status;

async function signedInApp(scope = 'posts:read') {
  const person = await createPerson(s.t);
  const config = await registerClient(s.origin);
  const tokens = await codeFlow(config, new CookieJar(person.sessionToken), { scope, workspaceId: person.workspaceId });
  return { person, config, tokens };
}

async function refreshError(config: client.Configuration, refreshToken: string): Promise<string> {
  try {
    await client.refreshTokenGrant(config, refreshToken);
  } catch (error) {
    return (error as { error?: string }).error ?? String(error);
  }
  throw new Error('The refresh token was accepted.');
}

describe('refresh tokens', () => {
  it('rotate on every use: the new pair works, the same scopes and resource', async () => {
    const { config, tokens } = await signedInApp('posts:read channels:read');
    const next = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(next.access_token).toMatch(/^svco_/);
    expect(next.refresh_token).toMatch(/^svcr_/);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.scope?.split(' ').sort()).toEqual(['channels:read', 'posts:read']);
    expect(await restStatus(next.access_token)).toBe(200);
    const third = await client.refreshTokenGrant(config, next.refresh_token!);
    expect(await restStatus(third.access_token)).toBe(200);
  });

  it('reuse of a rotated refresh token revokes the whole family', async () => {
    const { config, tokens } = await signedInApp();
    const next = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(await refreshError(config, tokens.refresh_token!)).toBe('invalid_grant');
    // Everything issued from the same consent stops working: the stolen and the legitimate copies alike.
    expect(await refreshError(config, next.refresh_token!)).toBe('invalid_grant');
    expect(await restStatus(next.access_token)).toBe(401);
    expect(await restStatus(tokens.access_token)).toBe(401);
  });

  it('a refresh token works for its own client only', async () => {
    const { tokens } = await signedInApp();
    const other = await registerClient(s.origin);
    expect(await refreshError(other, tokens.refresh_token!)).toBe('invalid_grant');
  });
});

describe('revocation (RFC 7009)', () => {
  it('revoking the access token stops it at once', async () => {
    const { config, tokens } = await signedInApp();
    expect(await restStatus(tokens.access_token)).toBe(200);
    await client.tokenRevocation(config, tokens.access_token);
    expect(await restStatus(tokens.access_token)).toBe(401);
  });

  it('revoking the refresh token ends the grant: its access tokens stop too', async () => {
    const { config, tokens } = await signedInApp();
    await client.tokenRevocation(config, tokens.refresh_token!);
    expect(await refreshError(config, tokens.refresh_token!)).toBe('invalid_grant');
    expect(await restStatus(tokens.access_token)).toBe(401);
  });

  it('answers 200 for an unknown token, as RFC 7009 asks', async () => {
    const config = await registerClient(s.origin);
    await expect(client.tokenRevocation(config, 'svco_not-a-token')).resolves.toBeUndefined();
  });
});
