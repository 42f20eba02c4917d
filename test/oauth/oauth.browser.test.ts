import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../bench/lib.ts';
import { launchChromium, recordProblems, shootBothWidths, BROWSER_TEST_MS } from '../helpers/browser.ts';
import { herald, processBudget } from '../helpers/process.ts';
import { createPerson, registerClient, startOAuthServer, type OAuthServer } from './helpers.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

/**
 * The OAuth pages in real headless Chromium (Debian's `chromium`) against the real server on
 * loopback, with `openid-client` as the app: the consent page allowed and denied, and the list of
 * allowed apps with “revoke access”. Screenshots go to test-artifacts/oauth/.
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/oauth/', import.meta.url));

let s: OAuthServer;
let browser: Browser;
let app: { url: string; next(): Promise<URL>; close(): Promise<void> };
const pageErrors: string[] = [];
const cspViolations: string[] = [];

/** The app's redirect URI: a loopback server that records each callback. */
async function startCallbackServer() {
  const port = await freePort();
  const waiting: Array<(url: URL) => void> = [];
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Back in the app.');
    waiting.shift()?.(new URL(req.url!, `http://127.0.0.1:${port}`));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => new Promise<URL>((resolve) => waiting.push(resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeAll(
  async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    s = await startOAuthServer();
    app = await startCallbackServer();
    browser = await launchChromium();
  },
  processBudget(1, 30_000),
);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  expect(pageErrors).toEqual([]);
  expect(cspViolations).toEqual([]);
});

async function signedIn(sessionToken: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addCookies([{ name: 'herald_session', value: sessionToken, url: s.origin }]);
  const page = recordProblems(await context.newPage(), { pageErrors, cspViolations });
  return { context, page };
}

const shoot = (page: Page, name: string) => shootBothWidths(page, ARTIFACTS, name);

async function startAuthorization(config: client.Configuration, scope: string) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: app.url,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource: `${s.origin}/public/v1`,
  });
  return { url: url.href, verifier, state };
}

describe('consent in a browser', () => {
  it('the user picks a workspace and allows; the app gets a token for that workspace; revoking access ends it', async () => {
    const person = await createPerson(s.t, 'editor');
    const second = await s.t.services.workspaces.create({ name: 'Second workspace' });
    await s.t.services.workspaces.addMember(second.id, person.userId, 'owner');
    const config = await registerClient(s.origin, { client_name: 'Calendar helper', redirect_uris: [app.url] });
    const { context, page } = await signedIn(person.sessionToken);
    const { url, verifier, state } = await startAuthorization(config, 'posts:read channels:read');

    await page.goto(url);
    await expect.poll(() => page.locator('#client-name').innerText()).toBe('Calendar helper');
    expect(await page.locator('#scopes li').allInnerTexts()).toEqual([
      'Read your posts and the calendar (posts:read)',
      'See your connected channels (channels:read)',
    ]);
    await shoot(page, 'consent');
    await page.selectOption('#workspace', second.id);
    const callback = app.next();
    await page.click('#allow');
    const back = await callback;
    expect(back.searchParams.get('iss')).toBe(s.origin);
    const tokens = await client.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state });
    const workspaces = await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const listed = JSON.stringify(await workspaces.json());
    expect(listed).toContain(second.id);
    expect(listed).not.toContain(person.workspaceId);

    await page.goto(`${s.origin}/account/apps`);
    await expect.poll(() => page.locator('[data-grant-id]').count()).toBe(1);
    expect(await page.locator('[data-grant-id]').innerText()).toContain('Calendar helper');
    await shoot(page, 'apps');
    await page.click('[data-grant-id] button.danger');
    await expect.poll(() => page.locator('#confirm-title').count()).toBe(1);
    await shoot(page, 'confirm-revoke-access');
    expect((await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      200,
    );
    await page.click('#confirm');
    await expect.poll(() => page.locator('.banner.good').count()).toBe(1);
    expect(await page.locator('[data-grant-id]').count()).toBe(0);
    expect((await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      401,
    );
    await context.close();
  });

  it('a signed-out user signs in first and comes back to the consent page; denying sends access_denied', async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin, { redirect_uris: [app.url] });
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const { url } = await startAuthorization(config, 'posts:read');
    await page.goto(url);
    await page.waitForURL(/\/account\/sign-in\?next=%2Foauth%2Finteraction%2F/);
    // Signing in (by mailed code, tested with the account pages) ends in a session: add it and follow `next`.
    await context.addCookies([{ name: 'herald_session', value: person.sessionToken, url: s.origin }]);
    await page.goto(`${s.origin}${new URL(page.url()).searchParams.get('next')}`);
    const callback = app.next();
    await page.click('#deny');
    const back = await callback;
    expect(back.searchParams.get('error')).toBe('access_denied');
    await context.close();
  });
});

describe('device flow in a browser, with `herald login`', () => {
  it(
    'herald login shows a link and a code; the user confirms and allows in Chromium; the CLI works, and logout revokes',
    async () => {
      const person = await createPerson(s.t, 'editor');
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-oauth-'));
      const env = { XDG_CONFIG_HOME: path.join(home, 'config'), TZ: 'UTC' };
      try {
        let stderr = '';
        let sawLink: (link: string) => void;
        const link = new Promise<string>((resolve) => (sawLink = resolve));
        const login = herald(['login', '--url', s.origin], env, '', {
          onStderr: (text) => {
            stderr += text;
            const found = /open (http:\/\/\S+) in a browser/.exec(stderr);
            if (found) sawLink(found[1]!);
          },
        });
        const { context, page } = await signedIn(person.sessionToken);
        await page.goto(await link);
        const code = /the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr)![1]!;
        // The link carries the code: the page asks to confirm it (typing it is tested over HTTP).
        await expect.poll(() => page.locator('#device-code').innerText()).toBe(code);
        await shoot(page, 'device-confirm');
        await page.click('#device-confirm');
        await expect.poll(() => page.locator('#client-name').innerText()).toBe('Herald command line');
        await page.click('#allow');
        await expect.poll(() => page.locator('#device-done').count()).toBe(1);
        await shoot(page, 'device-done');
        const result = await login;
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain(`Logged in to ${s.origin} (profile default). The access token is stored`);
        const stored = JSON.parse(fs.readFileSync(path.join(env.XDG_CONFIG_HOME, 'herald', 'credentials.json'), 'utf8')) as {
          profiles: { default: { kind: string; key: string; refreshToken: string } };
        };
        expect(stored.profiles.default).toMatchObject({
          kind: 'oauth',
          key: expect.stringMatching(/^svco_/),
          refreshToken: expect.stringMatching(/^svcr_/),
        });
        const workspaces = await herald(['workspaces', '--json'], env);
        expect(workspaces.code, workspaces.stderr).toBe(0);
        expect(JSON.parse(workspaces.stdout)).toEqual([expect.objectContaining({ id: person.workspaceId, role: 'editor' })]);

        const logout = await herald(['logout'], env);
        expect(logout.stdout).toContain('Its access was revoked at the instance.');
        const after = await fetch(`${s.origin}/public/v1/workspaces`, {
          headers: { authorization: `Bearer ${stored.profiles.default.key}` },
        });
        expect(after.status).toBe(401);
        await context.close();
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    },
    processBudget(3),
  );
});
