// A browser sign-in to a platform started by the web app (the member's browser session, not an
// API key): the callback connects the channel while the session lasts, and nothing once it ended.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearMastodonInstances } from '../../src/providers/mastodon/mastodon.provider.ts';
import { signedInOwner } from '../helpers/account-pages.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../helpers/app.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import { csrfIn, type WebAgent } from '../helpers/web-agent.ts';
import { FakeMastodon } from '../providers/mastodon/fake-mastodon.ts';

let t: TestApp;
let fake: FakeMastodon;
let mail: Awaited<ReturnType<typeof startMailServer>>;

beforeAll(async () => {
  mail = await startMailServer();
  fake = await new FakeMastodon().start();
  t = await createTestApp({
    env: { SMTP_URL: mail.url, OUTBOUND_ALLOW_LOOPBACK: 'true', RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /account/sign-in': 10_000 }) },
  });
});
beforeEach(() => {
  fake.reset();
  fake.signedIn = '1';
  clearMastodonInstances();
});
afterAll(async () => {
  await t?.close();
  await fake?.stop();
  await mail?.close();
});

/** A call of the public API as the web app makes it: the session cookie and the CSRF header. */
async function call(agent: WebAgent, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  const page = await agent.get('/account/keys');
  return t.request({
    method,
    url: `/public/v1${url}`,
    headers: { cookie: [...agent.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-herald-csrf': csrfIn(page.body) },
    ...(payload && { payload }),
  });
}

/** Starts the Mastodon sign-in as the session and follows the instance's approval back to Herald's callback. */
async function startAndApprove(agent: WebAgent): Promise<string> {
  const started = await call(agent, 'POST', '/integrations/connect', { provider: 'mastodon', instance: fake.url });
  expect(started.statusCode, started.body).toBe(200);
  const answer = await fetch((started.json() as { url: string }).url, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get('location')!);
  expect(back.origin).toBe(TEST_BASE_URL);
  return back.pathname + back.search;
}

describe('a platform sign-in started by the browser session', () => {
  it('connects the channel at the callback', async () => {
    const { agent } = await signedInOwner(t, mail);
    const callback = await startAndApprove(agent);
    const page = await t.request({ method: 'GET', url: callback });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Alice Example');
    const listed = await call(agent, 'GET', '/integrations');
    expect((listed.json() as Array<{ name: string }>).map((c) => c.name)).toEqual(['Alice Example']);
  });

  it('connects nothing when the session ended before the callback', async () => {
    const { agent, workspaceId } = await signedInOwner(t, mail);
    const callback = await startAndApprove(agent);
    const signedOut = await agent.post('/account/sign-out', {}, { from: (await agent.get('/account/keys')).body });
    expect(signedOut.statusCode).toBe(303);
    const page = await t.request({ method: 'GET', url: callback });
    expect(page.statusCode).toBe(403);
    expect(await t.services.channels.list(workspaceId)).toEqual([]);
  });
});
