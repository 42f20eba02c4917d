import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeFlow, CookieJar, createPerson, registerClient, startOAuthServer, type OAuthServer } from './helpers.ts';

let s: OAuthServer;
beforeAll(async () => {
  s = await startOAuthServer();
});

const restStatus = async (token: string) =>
  (await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })).status;
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const mcpStatus = async (token: string) =>
  (
    await fetch(`${s.origin}/mcp-oauth`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    })
  ).status;
const surfaces = () => [
  { name: 'REST', resource: `${s.origin}/public/v1`, scope: 'posts:read', status: restStatus },
  { name: 'MCP', resource: `${s.origin}/mcp-oauth`, scope: 'mcp:read', status: mcpStatus },
];

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

/** One person allows the same app twice in the same browser (the authorization server's session cookie kept). */
async function twiceFromOneBrowser() {
  const person = await createPerson(s.t);
  const config = await registerClient(s.origin);
  const browser = new CookieJar(person.sessionToken);
  const first = await codeFlow(config, browser, { scope: 'posts:read', workspaceId: person.workspaceId });
  const second = await codeFlow(config, browser, { scope: 'posts:read', workspaceId: person.workspaceId });
  return { config, first, second };
}

describe('two authorizations of the same app from one browser', () => {
  it('revoking the first access token stops it at once, on REST and on MCP; the second keeps working', async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin);
    const browser = new CookieJar(person.sessionToken);
    for (const { name, resource, scope, status } of surfaces()) {
      const first = await codeFlow(config, browser, { scope, resource, workspaceId: person.workspaceId });
      const second = await codeFlow(config, browser, { scope, resource, workspaceId: person.workspaceId });
      await client.tokenRevocation(config, first.access_token);
      expect(await status(first.access_token), name).toBe(401);
      expect(await status(second.access_token), name).toBe(200);
    }
  });

  it('revoking the first refresh token ends the first grant only', async () => {
    const { config, first, second } = await twiceFromOneBrowser();
    await client.tokenRevocation(config, first.refresh_token!);
    expect(await restStatus(first.access_token)).toBe(401);
    expect(await refreshError(config, first.refresh_token!)).toBe('invalid_grant');
    expect(await restStatus(second.access_token)).toBe(200);
    expect(await restStatus((await client.refreshTokenGrant(config, second.refresh_token!)).access_token)).toBe(200);
  });

  it('each keeps its refresh token: allowing the app again does not end the first grant', async () => {
    const { config, first, second } = await twiceFromOneBrowser();
    for (const tokens of [first, second]) {
      const next = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(await restStatus(next.access_token)).toBe(200);
    }
  });
});

describe('tokens stored bound to a login session (as issued before each grant stood alone)', () => {
  it('are revoked all the same, on REST and on MCP, even once that session is gone', async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin);
    for (const { name, resource, scope, status } of surfaces()) {
      const tokens = await codeFlow(config, new CookieJar(person.sessionToken), { scope, resource, workspaceId: person.workspaceId });
      for (const [model, value] of [
        ['AccessToken', tokens.access_token],
        ['RefreshToken', tokens.refresh_token!],
      ] as const) {
        const idHash = createHash('sha256').update(value).digest('hex');
        const { payload } = await s.t.runtime.db
          .selectFrom('oauth_records')
          .select('payload')
          .where('model', '=', model)
          .where('id_hash', '=', idHash)
          .executeTakeFirstOrThrow();
        const bound = JSON.stringify({ ...JSON.parse(payload), expiresWithSession: true, sessionUid: 'a-session-that-ended' });
        await s.t.runtime.db
          .updateTable('oauth_records')
          .set({ payload: bound })
          .where('model', '=', model)
          .where('id_hash', '=', idHash)
          .execute();
      }
      await client.tokenRevocation(config, tokens.access_token);
      expect(await status(tokens.access_token), name).toBe(401);
      await client.tokenRevocation(config, tokens.refresh_token!);
      expect(await refreshError(config, tokens.refresh_token!), name).toBe('invalid_grant');
    }
  });
});
