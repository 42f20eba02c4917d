import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { CookieJar, createPerson, startOAuthServer, type OAuthServer } from './helpers.ts';

let s: OAuthServer;
let cli: client.Configuration;
beforeAll(async () => {
  s = await startOAuthServer();
  cli = await client.discovery(new URL(s.origin), 'herald-cli', undefined, client.None(), {
    execute: [client.allowInsecureRequests],
    algorithm: 'oauth2',
  });
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

/** The verification pages up to the consent page: type the code, check it and the app, continue. */
async function confirmCode(jar: CookieJar, verificationUri: string, userCode: string) {
  const input = await jar.fetch(verificationUri);
  const inputHtml = await input.text();
  expect(input.status, inputHtml).toBe(200);
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(inputHtml)![1]!, s.origin).href;
  const confirm = await jar.fetch(action, form({ xsrf: field(inputHtml, 'xsrf'), user_code: userCode }));
  const confirmHtml = await confirm.text();
  expect(confirmHtml).toContain(userCode);
  const toConsent = await jar.fetch(
    action,
    form({ xsrf: field(confirmHtml, 'xsrf'), user_code: field(confirmHtml, 'user_code'), confirm: 'yes' }),
  );
  expect(toConsent.status, await toConsent.clone().text()).toBe(303);
  const interaction = new URL(toConsent.headers.get('location')!, s.origin).href;
  const consent = await jar.fetch(interaction);
  return { confirmHtml, interaction, consentHtml: await consent.text() };
}

/** What a person does in the browser (the browser test clicks it): type the code, confirm, allow. */
async function approve(jar: CookieJar, verificationUri: string, userCode: string, workspaceId: string, decision = 'allow') {
  const { interaction, consentHtml } = await confirmCode(jar, verificationUri, userCode);
  expect(consentHtml).toContain('Herald command line');
  const answer = await jar.fetch(interaction, form({ _csrf: field(consentHtml, '_csrf'), workspace: workspaceId, decision }));
  expect(answer.status).toBe(303);
  const done = await jar.fetch(new URL(answer.headers.get('location')!, s.origin).href);
  return done.text();
}

describe('device authorization grant (RFC 8628)', () => {
  it('the CLI client gets tokens once the signed-in user types the code and allows', async () => {
    const person = await createPerson(s.t, 'contributor');
    const device = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read posts:draft', resource: `${s.origin}/public/v1` });
    expect(device.verification_uri).toBe(`${s.origin}/oauth/device`);
    expect(device.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(device.interval).toBe(1);
    const page = await approve(new CookieJar(person.sessionToken), device.verification_uri, device.user_code, person.workspaceId);
    expect(page).toContain('Device connected');
    const tokens = await client.pollDeviceAuthorizationGrant(cli, device);
    expect(tokens.access_token).toMatch(/^svco_/);
    expect(tokens.refresh_token).toMatch(/^svcr_/);
    const res = await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain(person.workspaceId);
  });

  it('a wrong code is refused on the page, and a denied request ends with access_denied', async () => {
    const person = await createPerson(s.t);
    const jar = new CookieJar(person.sessionToken);
    const input = await jar.fetch(`${s.origin}/oauth/device`);
    const html = await input.text();
    const wrong = await jar.fetch(`${s.origin}/oauth/device`, form({ xsrf: field(html, 'xsrf'), user_code: 'BCDF-GHJK' }));
    expect(await wrong.text()).toContain('That code is not right');

    const device = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
    await approve(jar, device.verification_uri, device.user_code, person.workspaceId, 'deny');
    // One token request (not a poll, which waits the interval first): the answer is final.
    const token = await fetch(
      `${s.origin}/oauth/token`,
      form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code, client_id: 'herald-cli' }),
    );
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({ error: 'access_denied' });
  });
});

describe('the verification page, reloaded after Continue', () => {
  const state = (html: string) => /id="device-state" data-state="([a-z]+)"/.exec(html)?.[1];
  /** The code typed again on a fresh verification page, as a reload or a second tab does. */
  async function typeAgain(jar: CookieJar, userCode: string) {
    const input = await jar.fetch(`${s.origin}/oauth/device`);
    const html = await input.text();
    const res = await jar.fetch(`${s.origin}/oauth/device`, form({ xsrf: field(html, 'xsrf'), user_code: userCode.toLowerCase() }));
    return res.text();
  }

  it('shows the browser that confirmed the code what became of it: waiting (with the consent page again), then connected', async () => {
    const person = await createPerson(s.t);
    const jar = new CookieJar(person.sessionToken);
    const device = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
    const { confirmHtml, interaction } = await confirmCode(jar, device.verification_uri, device.user_code);

    // The confirmation page's form sent again (the browser's reload) and the code typed again: the consent is waiting.
    const resent = await jar.fetch(
      `${s.origin}/oauth/device`,
      form({ xsrf: field(confirmHtml, 'xsrf'), user_code: field(confirmHtml, 'user_code') }),
    );
    const resentHtml = await resent.text();
    expect(state(resentHtml), resentHtml).toBe('waiting');
    expect(resentHtml).toContain(`href="${new URL(interaction).pathname}"`);
    expect(state(await typeAgain(jar, device.user_code))).toBe('waiting');

    // Someone else typing the same code learns nothing more than before.
    const stranger = await createPerson(s.t);
    const other = await typeAgain(new CookieJar(stranger.sessionToken), device.user_code);
    expect(state(other)).toBeUndefined();
    expect(other).toContain('That code is not right, or it has expired');

    // The consent page still works from the link; once allowed, the success page reloaded and the code typed again say so.
    const consent = await jar.fetch(interaction);
    const consentHtml = await consent.text();
    const answer = await jar.fetch(
      interaction,
      form({ _csrf: field(consentHtml, '_csrf'), workspace: person.workspaceId, decision: 'allow' }),
    );
    const done = new URL(answer.headers.get('location')!, s.origin).href;
    expect(await (await jar.fetch(done)).text()).toContain('Device connected');
    const reloaded = await (await jar.fetch(done)).text();
    expect(state(reloaded), reloaded).toBe('connected');
    expect(state(await typeAgain(jar, device.user_code))).toBe('connected');
    expect(state(await typeAgain(new CookieJar(stranger.sessionToken), device.user_code))).toBeUndefined();
    expect((await client.pollDeviceAuthorizationGrant(cli, device)).access_token).toMatch(/^svco_/);
  });

  it('says a denied code was denied, and an expired one expired', async () => {
    const person = await createPerson(s.t);
    const jar = new CookieJar(person.sessionToken);
    const denied = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
    await approve(jar, denied.verification_uri, denied.user_code, person.workspaceId, 'deny');
    expect(state(await typeAgain(jar, denied.user_code))).toBe('denied');

    // Cancelled on the confirmation page, before any consent: the code typed again says so too.
    const cancelled = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
    const input = await (await jar.fetch(cancelled.verification_uri)).text();
    const confirmHtml = await (
      await jar.fetch(`${s.origin}/oauth/device`, form({ xsrf: field(input, 'xsrf'), user_code: cancelled.user_code }))
    ).text();
    const cancel = await jar.fetch(
      `${s.origin}/oauth/device`,
      form({ xsrf: field(confirmHtml, 'xsrf'), user_code: field(confirmHtml, 'user_code'), abort: 'yes' }),
    );
    expect(await cancel.text()).toContain('The sign-in was cancelled.');
    expect(state(await typeAgain(jar, cancelled.user_code))).toBe('denied');

    const late = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
    await confirmCode(jar, late.verification_uri, late.user_code);
    s.clock.advance(11 * 60_000);
    try {
      expect(state(await typeAgain(jar, late.user_code))).toBe('expired');
    } finally {
      s.clock.advance(-11 * 60_000);
    }
  });
});

describe('two device logins approved in the same browser', () => {
  it("are two grants: approving the second ends neither the first's refresh token nor its access token", async () => {
    const person = await createPerson(s.t);
    const browser = new CookieJar(person.sessionToken);
    const logins = [];
    for (let i = 0; i < 2; i += 1) {
      const device = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
      await approve(browser, device.verification_uri, device.user_code, person.workspaceId);
      logins.push(await client.pollDeviceAuthorizationGrant(cli, device));
    }
    const rest = async (token: string) =>
      (await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })).status;
    for (const tokens of logins) {
      expect(await rest(tokens.access_token)).toBe(200);
      const next = await client.refreshTokenGrant(cli, tokens.refresh_token!);
      expect(await rest(next.access_token)).toBe(200);
    }
    // Revoking one login leaves the other.
    await client.tokenRevocation(cli, logins[0]!.refresh_token!);
    expect((await s.t.services.oauth.allowedApps(person.userId)).length).toBe(1);
  });
});

describe('who asks, on the confirmation and consent pages (RFC 8628 §5.4)', () => {
  it("the CLI is marked as Herald's own; another device app, whatever its name, shows its id and registration date", async () => {
    const jar = new CookieJar((await createPerson(s.t)).sessionToken);
    const ours = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
    const own = await confirmCode(jar, ours.verification_uri, ours.user_code);
    for (const html of [own.confirmHtml, own.consentHtml]) {
      expect(html).toContain('<span class="tag" id="first-party">');
      expect(html).not.toContain('id="client-facts"');
    }

    const registration = await fetch(`${s.origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Command line',
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
        response_types: [],
        redirect_uris: [],
      }),
    });
    expect(registration.status).toBe(201);
    const registered = (await registration.json()) as { client_id: string; client_id_issued_at: number };
    const other = await client.discovery(new URL(s.origin), registered.client_id, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const theirs = await client.initiateDeviceAuthorization(other, { scope: 'posts:read' });
    const page = await confirmCode(jar, theirs.verification_uri, theirs.user_code);
    for (const html of [page.confirmHtml, page.consentHtml]) {
      expect(html).not.toContain('id="first-party"');
      expect(html).toContain(`Not one of Herald’s own apps: app id <code>${registered.client_id}</code>`);
      expect(html).toContain(`datetime="${new Date(registered.client_id_issued_at * 1000).toISOString()}"`);
    }
  });
});

describe('the poll interval', () => {
  it("is RFC 8628's 5 seconds unless configured", async () => {
    const t = await createTestApp();
    const res = await t.request({
      method: 'POST',
      url: '/oauth/device/auth',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'client_id=herald-cli&scope=posts:read',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ interval: 5, device_code: expect.any(String) });
  });
});

describe('device codes at rest', () => {
  const poll = (deviceCode: string) =>
    fetch(
      `${s.origin}/oauth/token`,
      form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode, client_id: 'herald-cli' }),
    );
  const rows = () => s.t.runtime.db.selectFrom('oauth_records').selectAll().where('model', 'in', ['DeviceCode', 'Interaction']).execute();

  it('are stored hashed: a leaked row cannot be used to poll for the token', async () => {
    const person = await createPerson(s.t);
    const device = await client.initiateDeviceAuthorization(cli, { scope: 'posts:read' });
    const hash = createHash('sha256').update(device.device_code).digest('hex');
    const [row] = (await rows()).filter((r) => r.model === 'DeviceCode' && r.id_hash === hash);
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain(device.device_code);
    expect(row!.user_code_hash).toBe(createHash('sha256').update(device.user_code.replace('-', '')).digest('hex'));

    await approve(new CookieJar(person.sessionToken), device.verification_uri, device.user_code, person.workspaceId);
    // Nothing stored along the way (the code's row, the consent's interaction) holds the code.
    expect(JSON.stringify(await rows())).not.toContain(device.device_code);
    // What a leaked row gives (its hash, or the handle the verification pages use) gets no token.
    for (const leaked of [hash, `stored:${hash}`]) {
      const res = await poll(leaked);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    }
    // The device's own code still does, once.
    const res = await poll(device.device_code);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { access_token: string }).access_token).toMatch(/^svco_/);
  });
});
