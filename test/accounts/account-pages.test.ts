import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapIfEmpty } from '../../src/bootstrap.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, unique, type TestApp } from '../helpers/app.ts';
import { signedInOwner as ownerOf, signInWithCode } from '../helpers/account-pages.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import { csrfIn, secretIn, WebAgent } from '../helpers/web-agent.ts';

let mail: Awaited<ReturnType<typeof startMailServer>>;
let t: TestApp;
const clock = new ManualClock('2026-11-23T10:00:00.000Z');

beforeAll(async () => {
  mail = await startMailServer();
  t = await createTestApp({
    clock,
    env: {
      SMTP_URL: mail.url,
      RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /public/v1/signup/start': 10_000, 'POST /account/sign-in': 10_000 }),
    },
  });
});

const signedInOwner = () => ownerOf(t, mail);
const signIn = (email: string) => signInWithCode(t, mail, email);

describe('pages', () => {
  it('have a strict CSP, are never cached and cannot be framed', async () => {
    const res = await t.request({ method: 'GET', url: '/account/sign-in' });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[^']+'(;|$)/);
    expect(csp).toMatch(/style-src 'sha256-[^']+'(;|$)/);
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).not.toMatch(/ style="/);
  });

  it('send a signed-out visitor to sign in, and back afterwards', async () => {
    const res = await t.request({ method: 'GET', url: '/account/members' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/account/sign-in?next=%2Faccount%2Fmembers');
  });
});

describe('CSRF', () => {
  it('refuses a form without the token, with a wrong one, or posted from another site', async () => {
    const { agent } = await signedInOwner();
    const page = await agent.get('/account/keys');
    const token = csrfIn(page.body);
    expect((await agent.post('/account/keys', { name: 'x', kind: 'rest', scopes: 'posts:read' })).statusCode).toBe(403);
    expect((await agent.post('/account/keys', { _csrf: 'a'.repeat(64), name: 'x', kind: 'rest', scopes: 'posts:read' })).statusCode).toBe(
      403,
    );
    expect(
      (
        await agent.post(
          '/account/keys',
          { _csrf: token, name: 'x', kind: 'rest', scopes: 'posts:read' },
          { headers: { 'sec-fetch-site': 'cross-site' } },
        )
      ).statusCode,
    ).toBe(403);
    // Another browser's token is refused too.
    const other = await signedInOwner();
    const otherToken = csrfIn((await other.agent.get('/account/keys')).body);
    expect((await agent.post('/account/keys', { _csrf: otherToken, name: 'x', kind: 'rest', scopes: 'posts:read' })).statusCode).toBe(403);
    expect((await agent.post('/account/sign-out', { _csrf: otherToken })).statusCode).toBe(403);
    // The sign-in form is protected before any session exists.
    const stranger = new WebAgent(t);
    await stranger.get('/account/sign-in');
    expect((await stranger.post('/account/sign-in', { email: 'a@example.test' })).statusCode).toBe(403);
    // No key was made by any of these.
    expect((await agent.get('/account/keys')).body).not.toContain('data-key-id');
  });
});

describe('developer settings', () => {
  it('makes a key shown once that works against the API, stops the old secret on rotate, and dies on revoke', async () => {
    const { agent, workspaceId } = await signedInOwner();
    const page = await agent.get('/account/keys');
    const created = await agent.post(
      '/account/keys',
      { name: 'script', kind: 'rest', scopes: ['posts:read', 'channels:read'] },
      { from: page.body },
    );
    expect(created.statusCode, created.body).toBe(200);
    const secret = secretIn(created.body)!;
    expect(secret).toMatch(/^svc_[0-9A-Za-z]{16}_[0-9A-Za-z]{40}$/);
    // Shown once: the next view lists the key by its prefix only.
    const later = await agent.get('/account/keys');
    expect(later.body).not.toContain(secret);
    expect(later.body).toContain(secret.slice(0, 21));

    const call = (key: string) => t.request({ method: 'GET', url: '/public/v1/integrations', key });
    expect((await call(secret)).statusCode).toBe(200);
    // Its scopes are the ones chosen.
    expect(
      (await t.request({ method: 'GET', url: '/public/v1/posts?startDate=2026-11-01T00:00:00Z&endDate=2026-11-02T00:00:00Z', key: secret }))
        .statusCode,
    ).toBe(200);
    expect((await t.request({ method: 'POST', url: '/public/v1/upload-link', key: secret })).statusCode).toBe(403);
    const keyId = secret.slice(4, 20);
    expect((await t.services.apiKeys.list()).find((k) => k.id === keyId)?.workspaceId).toBe(workspaceId);

    // Rotating and revoking ask first: the first post only shows what would happen.
    const askRotate = await agent.post(`/account/keys/${keyId}/rotate`, {}, { from: later.body });
    expect(askRotate.statusCode).toBe(200);
    expect(askRotate.body).toContain('id="confirm-title"');
    expect(askRotate.body).toContain('name="confirm" value="yes"');
    expect(secretIn(askRotate.body)).toBeNull();
    expect((await call(secret)).statusCode).toBe(200);
    const rotated = await agent.post(`/account/keys/${keyId}/rotate`, { confirm: 'yes' }, { from: askRotate.body });
    expect(rotated.statusCode).toBe(200);
    const newSecret = secretIn(rotated.body)!;
    expect(newSecret).not.toBe(secret);
    expect((await call(secret)).statusCode).toBe(401);
    expect((await call(newSecret)).statusCode).toBe(200);

    const askRevoke = await agent.post(`/account/keys/${keyId}/revoke`, {}, { from: rotated.body });
    expect(askRevoke.body).toContain('Revoke the key “');
    expect((await call(newSecret)).statusCode).toBe(200);
    const revoked = await agent.post(`/account/keys/${keyId}/revoke`, { confirm: 'yes' }, { from: askRevoke.body });
    expect(revoked.statusCode).toBe(200);
    expect((await call(newSecret)).statusCode).toBe(401);
    expect(revoked.body).not.toContain(`data-key-id="${keyId}"`);
  });

  it('makes MCP keys, and refuses scopes the role does not allow', async () => {
    const { agent, workspaceId } = await signedInOwner();
    const viewer = `${unique('viewer')}@example.test`;
    const user = await t.services.users.create({ email: viewer });
    await t.services.workspaces.addMember(workspaceId, user.id, 'viewer');
    const page = await agent.get('/account/keys');
    const mcp = await agent.post(
      '/account/keys',
      { name: 'agent', kind: 'mcp', scopes: ['mcp:read', 'mcp:write', 'posts:read'] },
      { from: page.body },
    );
    expect(secretIn(mcp.body)).toMatch(/^svc_mcp_/);

    const viewerAgent = await signIn(viewer);
    const viewerPage = await viewerAgent.get('/account/keys');
    expect(viewerPage.body).not.toContain('value="posts:publish"');
    const refused = await viewerAgent.post(
      '/account/keys',
      { name: 'x', kind: 'rest', scopes: ['posts:publish'] },
      { from: viewerPage.body },
    );
    expect(refused.statusCode).toBe(400);
    expect(secretIn(refused.body)).toBeNull();
    // Another user's key cannot be rotated or revoked from here.
    const ownerKeys = await t.services.apiKeys.list((await t.services.users.get(viewer)).id);
    expect(ownerKeys).toHaveLength(0);
    const someoneElses = (await t.services.apiKeys.list()).find((k) => k.kind === 'mcp' && k.workspaceId === workspaceId)!;
    expect((await viewerAgent.post(`/account/keys/${someoneElses.id}/revoke`, {}, { from: viewerPage.body })).statusCode).toBe(404);
    expect(
      (await viewerAgent.post(`/account/keys/${someoneElses.id}/revoke`, { confirm: 'yes' }, { from: viewerPage.body })).statusCode,
    ).toBe(404);
  });
});

describe('sessions', () => {
  it('are refused by the REST API without the CSRF header, expire, and end on sign-out and sign-out everywhere', async () => {
    const { agent, email } = await signedInOwner();
    const cookie = `herald_session=${agent.cookies.get('herald_session')}`;
    // The cookie alone (what another site's request would carry) is not enough: see test/web/session-api.test.ts.
    const api = await t.request({ method: 'GET', url: '/public/v1/workspaces', headers: { cookie } });
    expect(api.statusCode).toBe(403);
    expect(api.json()).toMatchObject({ code: 'csrf_required' });

    // Sign out ends this session only.
    const second = await signIn(email);
    const page = await agent.get('/account/keys');
    expect((await agent.post('/account/sign-out', {}, { from: page.body })).statusCode).toBe(303);
    expect((await agent.get('/account/keys')).statusCode).toBe(303);
    expect((await second.get('/account/keys')).statusCode).toBe(200);

    // Sign out everywhere ends every one.
    const third = await signIn(email);
    const thirdPage = await third.get('/account/keys');
    expect((await third.post('/account/sign-out-everywhere', {}, { from: thirdPage.body })).statusCode).toBe(200);
    expect((await second.get('/account/keys')).statusCode).toBe(200);
    expect((await third.post('/account/sign-out-everywhere', { confirm: 'yes' }, { from: thirdPage.body })).statusCode).toBe(303);
    expect((await second.get('/account/keys')).statusCode).toBe(303);

    // A session expires after 14 days.
    const fourth = await signIn(email);
    clock.advance(14 * 24 * 60 * 60_000 - 1000);
    expect((await fourth.get('/account/keys')).statusCode).toBe(200);
    clock.advance(1000);
    expect((await fourth.get('/account/keys')).statusCode).toBe(303);
  });
});

describe('members', () => {
  it('invites by e-mail, changes roles, removes, and never removes or demotes the last owner', async () => {
    const { agent, workspaceId, userId } = await signedInOwner();
    let page = await agent.get('/account/members');
    expect(page.statusCode).toBe(200);
    const invited = `${unique('new')}@example.test`;
    const invitation = mail.next(invited);
    page = await agent.post('/account/members/invite', { email: invited, role: 'admin' }, { from: page.body });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain(`data-invitation="${invited}"`);
    expect((await invitation).text).toContain('/account/sign-in?email=');

    // They sign in (invite policy), accept the invitation waiting on their page, and are an admin.
    const admin = await signIn(invited);
    const adminId = (await t.services.users.get(invited)).id;
    expect(await t.services.workspaces.roleOf(workspaceId, adminId)).toBeNull();
    const waitingPage = await admin.get('/account/keys');
    const invitationId = /data-received-invitation="([^"]+)"/.exec(waitingPage.body)![1]!;
    expect((await admin.post(`/account/invitations/${invitationId}/accept`, {}, { from: waitingPage.body })).statusCode).toBe(200);
    expect(await t.services.workspaces.roleOf(workspaceId, adminId)).toBe('admin');
    // An admin may not make owners nor touch the owner.
    const adminPage = await admin.get('/account/members');
    expect(adminPage.body).not.toContain('<option value="owner"');
    expect((await admin.post(`/account/members/${userId}/remove`, { confirm: 'yes' }, { from: adminPage.body })).statusCode).toBe(403);
    expect(
      (await admin.post('/account/members/invite', { email: `${unique('x')}@example.test`, role: 'owner' }, { from: adminPage.body }))
        .statusCode,
    ).toBe(403);

    // Cancelling an invitation asks first.
    page = await agent.get('/account/members');
    const other = `${unique('other')}@example.test`;
    page = await agent.post('/account/members/invite', { email: other, role: 'viewer' }, { from: page.body });
    const cancelUrl = new RegExp(`data-invitation="${other}"[\\s\\S]*?action="(/account/invitations/[^"]+/cancel)"`).exec(page.body)![1]!;
    const askCancel = await agent.post(cancelUrl, {}, { from: page.body });
    expect(askCancel.body).toContain(`Cancel the invitation of ${other}?`);
    expect((await agent.get('/account/members')).body).toContain(`data-invitation="${other}"`);
    const cancelled = await agent.post(cancelUrl, { confirm: 'yes' }, { from: askCancel.body });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.body).not.toContain(`data-invitation="${other}"`);

    // The last owner stays.
    page = await agent.get('/account/members');
    const demote = await agent.post(`/account/members/${userId}/role`, { role: 'editor' }, { from: page.body });
    expect(demote.statusCode).toBe(409);
    expect(demote.body).toContain('last owner');
    expect((await agent.post(`/account/members/${userId}/remove`, { confirm: 'yes' }, { from: page.body })).statusCode).toBe(409);
    expect(await t.services.workspaces.roleOf(workspaceId, userId)).toBe('owner');

    // Roles change and members go.
    expect((await agent.post(`/account/members/${adminId}/role`, { role: 'viewer' }, { from: page.body })).statusCode).toBe(200);
    expect(await t.services.workspaces.roleOf(workspaceId, adminId)).toBe('viewer');
    expect((await admin.get('/account/members')).statusCode).toBe(403);
    const ask = await agent.post(`/account/members/${adminId}/remove`, {}, { from: page.body });
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain(`Remove ${invited} from this workspace?`);
    expect(await t.services.workspaces.roleOf(workspaceId, adminId)).toBe('viewer');
    expect((await agent.post(`/account/members/${adminId}/remove`, { confirm: 'yes' }, { from: ask.body })).statusCode).toBe(200);
    expect(await t.services.workspaces.roleOf(workspaceId, adminId)).toBeNull();
  });

  it('switches between workspaces', async () => {
    const { agent, userId } = await signedInOwner();
    const second = await t.services.workspaces.create({ name: 'Second workspace', ownerId: userId });
    const page = await agent.get('/account/keys');
    expect(page.body).toContain('name="workspace"');
    const switched = await agent.post('/account/workspace', { workspace: second.id, back: '/account/members' }, { from: page.body });
    expect(switched.headers.location).toBe('/account/members');
    expect((await agent.get('/account/members')).body).toContain('Members of Second workspace');
    // A workspace the user is not in is not chosen.
    const foreign = await t.services.workspaces.create({ name: 'Foreign' });
    await agent.post('/account/workspace', { workspace: foreign.id }, { from: page.body });
    expect((await agent.get('/account/members')).body).toContain('Members of Second workspace');
  });
});

describe('first start', () => {
  it('prints a one-time owner sign-in link that works once, within 24 hours', async () => {
    const fresh = await createTestApp({ clock: new ManualClock('2026-11-23T10:00:00.000Z') });
    const created = (await bootstrapIfEmpty(fresh.runtime.db, fresh.services, fresh.runtime.clock))!;
    expect(created.signInLink.expiresAt).toBe('2026-11-24T10:00:00.000Z');
    const path = new URL(created.signInLink.url).pathname;
    const agent = new WebAgent(fresh);
    const landing = await agent.get(path);
    expect(landing.statusCode).toBe(200);
    const used = await agent.post(path, {}, { from: landing.body });
    expect(used.statusCode).toBe(303);
    expect((await agent.get('/account/keys')).body).toContain('Default workspace');
    const again = new WebAgent(fresh);
    const second = await again.post(path, {}, { from: (await again.get(path)).body });
    expect(second.statusCode).toBe(400);
    await fresh.close();
  });
});
