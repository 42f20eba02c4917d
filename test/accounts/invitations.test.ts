// Invitations need their recipient's consent: nobody joins a workspace before accepting, signed in
// with the invited address; the inviter learns nothing about which addresses have accounts; a new
// account is not captured by a pending invitation; invitations (each one a mail) are rate limited.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { signedInOwner as ownerOf, signInWithCode } from '../helpers/account-pages.ts';
import { createTestApp, unique, type TestApp } from '../helpers/app.ts';
import { codeOf, startMailServer } from '../helpers/mail-server.ts';
import { WebAgent } from '../helpers/web-agent.ts';

let mail: Awaited<ReturnType<typeof startMailServer>>;
let t: TestApp;
const clock = new ManualClock('2026-11-23T10:00:00.000Z');
const generous = JSON.stringify({ 'POST /account/sign-in': 10_000, 'POST /account/sign-in/verify': 10_000 });

beforeAll(async () => {
  mail = await startMailServer();
  t = await createTestApp({ clock, env: { SMTP_URL: mail.url, SIGNUP: 'invite', RATE_LIMIT_ROUTES: generous } });
});

const signedInOwner = (app = t) => ownerOf(app, mail);
const signIn = (email: string, app = t) => signInWithCode(app, mail, email);

function banner(body: string, kind: 'good' | 'bad'): string | undefined {
  return new RegExp(`<div class="banner ${kind}" role="[a-z]+">([^<]*)</div>`).exec(body)?.[1];
}

/** Someone with an account, a workspace of their own and a key that acts in all their workspaces. */
async function existingAccount(app = t): Promise<{ email: string; userId: string; key: string }> {
  const email = `${unique('known')}@example.test`;
  const user = await app.services.users.create({ email });
  await app.services.workspaces.create({ name: unique('Own'), ownerId: user.id });
  const { secret } = await app.services.apiKeys.create({ userId: user.id, kind: 'rest', channelIds: null, workspaceId: null });
  return { email, userId: user.id, key: secret };
}

/** Invites through the members page; returns the page. */
async function invite(agent: WebAgent, email: string, role = 'editor') {
  const page = await agent.get('/account/members');
  const res = await agent.post('/account/members/invite', { email, role }, { from: page.body });
  await t.services.background.idle();
  return res;
}

/** The invitations waiting on a signed-in user's keys page: id and text of each. */
async function waitingFor(agent: WebAgent): Promise<{ body: string; ids: string[] }> {
  const page = await agent.get('/account/keys');
  expect(page.statusCode).toBe(200);
  return { body: page.body, ids: [...page.body.matchAll(/data-received-invitation="([^"]+)"/g)].map((m) => m[1]!) };
}

describe('inviting an address that has an account', () => {
  it('adds nobody until the recipient accepts, and answers exactly as for an address without one', async () => {
    const owner = await signedInOwner();
    const known = await existingAccount();
    const stranger = `${unique('stranger')}@example.test`;

    const toKnown = await invite(owner.agent, known.email);
    const toStranger = await invite(owner.agent, stranger);
    expect(toKnown.statusCode).toBe(200);
    expect(toStranger.statusCode).toBe(200);
    expect(banner(toKnown.body, 'good')!.replaceAll(known.email, 'ADDRESS')).toBe(
      banner(toStranger.body, 'good')!.replaceAll(stranger, 'ADDRESS'),
    );
    // Both wait on the members page; neither is a member.
    expect(toStranger.body).toContain(`data-invitation="${known.email}"`);
    expect(toStranger.body).not.toContain(`data-member="${known.email}"`);
    expect(await t.services.workspaces.roleOf(owner.workspaceId, known.userId)).toBeNull();
    // The invitee's key that acts in all their workspaces goes on working without naming one.
    expect((await t.request({ method: 'GET', url: '/public/v1/integrations', key: known.key })).statusCode).toBe(200);
    // The mail is the same for both too.
    const [toKnownMail] = mail.to(known.email);
    const [toStrangerMail] = mail.to(stranger);
    expect(toKnownMail!.subject).toBe(toStrangerMail!.subject);

    // Signed in, the recipient sees who invited them where, and accepts.
    const agent = await signIn(known.email);
    const waiting = await waitingFor(agent);
    expect(waiting.ids).toHaveLength(1);
    expect(waiting.body).toContain(owner.email);
    expect(waiting.body).toContain(owner.workspaceName);
    const accepted = await agent.post(`/account/invitations/${waiting.ids[0]}/accept`, {}, { from: waiting.body });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(banner(accepted.body, 'good')).toBe(`You joined ${owner.workspaceName} as editor.`);
    expect(await t.services.workspaces.roleOf(owner.workspaceId, known.userId)).toBe('editor');
    // The pages go on in the workspace joined; the invitation is used up.
    expect(accepted.body).toContain(`Your keys in <strong>${owner.workspaceName}</strong>`);
    expect((await waitingFor(agent)).ids).toHaveLength(0);
    expect((await agent.post(`/account/invitations/${waiting.ids[0]}/accept`, {}, { from: waiting.body })).statusCode).toBe(404);
  });

  it('is answered only by its recipient, signed in with the invited address; a declined one is gone', async () => {
    const owner = await signedInOwner();
    const carol = await existingAccount();
    await invite(owner.agent, carol.email, 'admin');
    const id = (await t.services.members.received({ email: carol.email }))[0]!.id;

    // Someone else, signed in, cannot answer it by its id.
    const mallory = await signIn((await existingAccount()).email);
    const malloryPage = await mallory.get('/account/keys');
    expect((await mallory.post(`/account/invitations/${id}/accept`, {}, { from: malloryPage.body })).statusCode).toBe(404);
    expect((await mallory.post(`/account/invitations/${id}/decline`, {}, { from: malloryPage.body })).statusCode).toBe(404);
    expect(await t.services.workspaces.members(owner.workspaceId)).toHaveLength(1);
    // Signed out: to the sign-in page, nothing answered.
    const stranger = new WebAgent(t);
    const form = await stranger.get('/account/sign-in');
    expect((await stranger.post(`/account/invitations/${id}/accept`, {}, { from: form.body })).statusCode).toBe(303);

    const agent = await signIn(carol.email);
    const waiting = await waitingFor(agent);
    expect(waiting.ids).toEqual([id]);
    const ask = await agent.post(`/account/invitations/${id}/decline`, {}, { from: waiting.body });
    expect(ask.body).toContain('id="confirm-title"');
    expect((await t.services.members.received({ email: carol.email })).map((i) => i.id)).toEqual([id]);
    const declined = await agent.post(`/account/invitations/${id}/decline`, { confirm: 'yes' }, { from: ask.body });
    expect(declined.statusCode).toBe(200);
    expect(banner(declined.body, 'good')).toBe('Invitation declined.');
    expect((await agent.post(`/account/invitations/${id}/accept`, {}, { from: waiting.body })).statusCode).toBe(404);
    expect(await t.services.workspaces.roleOf(owner.workspaceId, carol.userId)).toBeNull();
    expect((await owner.agent.get('/account/members')).body).not.toContain(`data-invitation="${carol.email}"`);
  });

  it('is not accepted by signing in with a one-time link', async () => {
    const owner = await signedInOwner();
    const known = await existingAccount();
    await invite(owner.agent, known.email);
    const { url } = await t.services.signIn.createLink(known.userId);
    const agent = new WebAgent(t);
    const path = new URL(url).pathname;
    const landing = await agent.get(path);
    expect((await agent.post(path, {}, { from: landing.body })).statusCode).toBe(303);
    expect(await t.services.workspaces.roleOf(owner.workspaceId, known.userId)).toBeNull();
    expect((await waitingFor(agent)).ids).toHaveLength(1);
  });

  it('holds only while its sender may still grant its role there', async () => {
    const owner = await signedInOwner();
    const adminEmail = `${unique('admin')}@example.test`;
    const admin = await t.services.users.create({ email: adminEmail });
    await t.services.workspaces.addMember(owner.workspaceId, admin.id, 'admin');
    const adminAgent = await signIn(adminEmail);
    const dave = await existingAccount();
    expect((await invite(adminAgent, dave.email, 'admin')).statusCode).toBe(200);
    // The admin is made an editor before Dave answers: the invitation no longer holds.
    await t.services.workspaces.setRole(owner.workspaceId, admin.id, 'editor');
    const agent = await signIn(dave.email);
    const waiting = await waitingFor(agent);
    const refused = await agent.post(`/account/invitations/${waiting.ids[0]}/accept`, {}, { from: waiting.body });
    expect(refused.statusCode).toBe(409);
    expect(banner(refused.body, 'bad')).toContain('no longer holds');
    expect(await t.services.workspaces.roleOf(owner.workspaceId, dave.userId)).toBeNull();
  });
});

describe('inviting an address sign-up refuses', () => {
  it('is refused as sign-up refuses it, so no invitation waits for an address that can never sign in to accept', async () => {
    const owner = await signedInOwner();
    // Both pass a bare "something@something.something" check; no code can be asked for either.
    for (const address of [`${unique('ana')}@example.c`, `${unique('ana')}..lee@example.test`]) {
      const signup = await t.app.inject({ method: 'POST', url: '/public/v1/signup/start', payload: { email: address } });
      expect(signup.statusCode).toBe(400);
      const refused = await invite(owner.agent, address);
      expect(refused.statusCode).toBe(400);
      expect(banner(refused.body, 'bad')).toBe('That is not an e-mail address.');
      expect(refused.body).not.toContain(`data-invitation="${address}"`);
    }
  });
});

describe('a new account with an invitation waiting', () => {
  it('gets its own workspace (open sign-up) and sees the invitation, naming who sent it, instead of joining', async () => {
    const open = await createTestApp({ clock, env: { SMTP_URL: mail.url, SIGNUP: 'open', RATE_LIMIT_ROUTES: generous } });
    const owner = await signedInOwner(open);
    const ana = `${unique('ana')}@corp.example`;
    const page = await owner.agent.get('/account/members');
    expect((await owner.agent.post('/account/members/invite', { email: ana, role: 'owner' }, { from: page.body })).statusCode).toBe(200);
    await open.services.background.idle();

    const agent = await signIn(ana, open);
    const anaId = (await open.services.users.get(ana)).id;
    expect(await open.services.workspaces.roleOf(owner.workspaceId, anaId)).toBeNull();
    const waiting = await agent.get('/account/keys');
    expect(waiting.body).toContain('where your role is owner');
    expect(waiting.body).toContain(`${ana.split('@')[0]}&#39;s workspace`);
    expect(waiting.body).toContain(owner.email);
    expect(waiting.body).toContain(owner.workspaceName);
    expect(waiting.body).toMatch(/action="\/account\/invitations\/[^"]+\/accept"/);
    expect(waiting.body).toMatch(/action="\/account\/invitations\/[^"]+\/decline"/);
    await open.close();
  });

  it('joins nothing before accepting under invite-only sign-up either', async () => {
    const owner = await signedInOwner();
    const bea = `${unique('bea')}@example.test`;
    await invite(owner.agent, bea, 'owner');
    const agent = await signIn(bea);
    const beaId = (await t.services.users.get(bea)).id;
    expect(await t.services.workspaces.roleOf(owner.workspaceId, beaId)).toBeNull();
    const waiting = await waitingFor(agent);
    expect(waiting.body).toContain('You are not a member of any workspace yet');
    expect(waiting.ids).toHaveLength(1);
    expect((await agent.post(`/account/invitations/${waiting.ids[0]}/accept`, {}, { from: waiting.body })).statusCode).toBe(200);
    expect(await t.services.workspaces.roleOf(owner.workspaceId, beaId)).toBe('owner');
  });
});

describe('the invitation mail', () => {
  it('links to a sign-in form that asks for a code, with the address filled in; asking sends it', async () => {
    const owner = await signedInOwner();
    const invited = `${unique('invited')}@example.test`;
    const invitation = mail.next(invited);
    await invite(owner.agent, invited);
    const link = /(http:\/\/herald\.test\/account\/sign-in\?\S+)/.exec((await invitation).text)![1]!;
    const agent = new WebAgent(t);
    const landing = await agent.get(link.slice('http://herald.test'.length));
    expect(landing.statusCode).toBe(200);
    expect(landing.body).not.toContain('a code is on its way');
    expect(landing.body).toContain('action="/account/sign-in"');
    expect(landing.body).toContain(`name="email" type="email" autocomplete="email" required maxlength="254" value="${invited}"`);
    expect(landing.body).not.toContain('action="/account/sign-in/verify"');
    // Asking sends the code; the code step follows.
    const codeMail = mail.next(invited);
    const sent = await agent.post('/account/sign-in', { email: invited }, { from: landing.body });
    expect(sent.statusCode).toBe(303);
    const codePage = await agent.get(sent.headers.location as string);
    expect(codePage.body).toContain('a code is on its way');
    const verified = await agent.post('/account/sign-in/verify', { email: invited, code: codeOf(await codeMail) }, { from: codePage.body });
    expect(verified.statusCode).toBe(303);
    // Signed in, the same link leads to the account (and the invitation) rather than to another sign-in.
    const again = await agent.get(link.slice('http://herald.test'.length));
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/account/keys');
  });

  it('is reported as written to the log, not sent, when no mail server is configured', async () => {
    const noMail = await createTestApp({ clock, env: { RATE_LIMIT_ROUTES: generous } });
    const user = await noMail.services.users.create({ email: `${unique('owner')}@example.test` });
    await noMail.services.workspaces.create({ name: unique('Acme'), ownerId: user.id });
    const path = new URL((await noMail.services.signIn.createLink(user.id)).url).pathname;
    const agent = new WebAgent(noMail);
    await agent.post(path, {}, { from: (await agent.get(path)).body });
    const page = await agent.get('/account/members');
    const invited = `${unique('invited')}@example.test`;
    const res = await agent.post('/account/members/invite', { email: invited, role: 'editor' }, { from: page.body });
    expect(res.statusCode).toBe(200);
    const notice = banner(res.body, 'good')!;
    expect(notice).not.toMatch(/^Invitation sent/);
    expect(notice).toContain('SMTP_URL');
    expect(notice).toContain('log');
    await noMail.close();
  });
});

describe('rate limits', () => {
  it('limit invitations per inviter and per workspace with a clear message; the window follows the clock', async () => {
    const perInviter = 10;
    const perWorkspace = 20;
    const owner = await signedInOwner();
    const addresses: string[] = [];
    const inviteMany = async (agent: WebAgent, n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i += 1) {
        const email = `${unique('burst')}@example.test`;
        addresses.push(email);
        statuses.push((await invite(agent, email)).statusCode);
      }
      return statuses;
    };
    expect(await inviteMany(owner.agent, perInviter)).toEqual(Array(perInviter).fill(200));
    const refused = await invite(owner.agent, `${unique('burst')}@example.test`);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(banner(refused.body, 'bad')).toMatch(/^Too many invitations: you may send 10 an hour\. Try again in \d+ minutes?\.$/);
    // Only the accepted ones were mailed.
    expect(mail.messages.filter((m) => m.to.startsWith('burst-') && addresses.includes(m.to))).toHaveLength(perInviter);
    expect(
      (await t.services.members.list({ userId: owner.userId, email: owner.email, workspaceId: owner.workspaceId, role: 'owner' }))
        .invitations,
    ).toHaveLength(perInviter);

    // Other admins of the workspace share its limit.
    const admins: WebAgent[] = [];
    for (let i = 0; i < 2; i += 1) {
      const email = `${unique('admin')}@example.test`;
      const admin = await t.services.users.create({ email });
      await t.services.workspaces.addMember(owner.workspaceId, admin.id, 'admin');
      admins.push(await signIn(email));
    }
    const left = perWorkspace - perInviter;
    expect(await inviteMany(admins[0]!, left)).toEqual(Array(left).fill(200));
    const full = await invite(admins[1]!, `${unique('burst')}@example.test`);
    expect(full.statusCode).toBe(429);
    expect(banner(full.body, 'bad')).toMatch(/^Too many invitations: this workspace may send 20 an hour\./);

    // An hour on, they may invite again.
    clock.advance(60 * 60_000);
    expect((await invite(owner.agent, `${unique('later')}@example.test`)).statusCode).toBe(200);
  });
});

describe('asking for sign-in codes on the page', () => {
  it('is refused beyond the route quota by a page that says so, not by the API JSON', async () => {
    const strict = await createTestApp({ clock, env: { SMTP_URL: mail.url } });
    const agent = new WebAgent(strict);
    const form = await agent.get('/account/sign-in');
    const answers = [];
    for (let i = 0; i < 11; i += 1)
      answers.push(await agent.post('/account/sign-in', { email: `${unique('burst')}@example.test` }, { from: form.body }));
    expect(answers.map((a) => a.statusCode)).toEqual([...Array(10).fill(303), 429]);
    const refused = answers[10]!;
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body).toContain('Too many requests to POST /account/sign-in');
    await strict.close();
  });
});
