import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, unique, type TestApp } from '../helpers/app.ts';
import { codeOf, startMailServer } from '../helpers/mail-server.ts';

const START = '/public/v1/signup/start';
const VERIFY = '/public/v1/signup/verify';
const generousQuotas = JSON.stringify({ [`POST ${START}`]: 10_000, [`POST ${VERIFY}`]: 10_000, 'POST /account/sign-in': 10_000 });

let mail: Awaited<ReturnType<typeof startMailServer>>;
let t: TestApp;
const clock = new ManualClock('2026-11-23T10:00:00.000Z');
/** Statements the app ran, while `recording` is on. */
let recording: Array<{ sql: string; parameters: number }> | null = null;

beforeAll(async () => {
  mail = await startMailServer();
  t = await createTestApp({
    clock,
    env: { SMTP_URL: mail.url, MAIL_FROM: 'Herald <herald@herald.test>', SIGNUP: 'invite', RATE_LIMIT_ROUTES: generousQuotas },
    onQuery: (query) => recording?.push({ sql: query.sql, parameters: query.parameters.length }),
    // The recording stops as the answer is sent: what ran before it is the work every caller waits for.
    extraRoutes: (app) =>
      app.addHook('onSend', async () => {
        if (recording) stopped = recording;
        recording = null;
      }),
  });
});
let stopped: Array<{ sql: string; parameters: number }> = [];

async function start(email: string, app = t) {
  const res = await app.request({ method: 'POST', url: START, payload: { email } });
  await app.services.background.idle();
  return res;
}

async function existingUser(app = t): Promise<string> {
  const email = `${unique('known')}@example.test`;
  const user = await app.services.users.create({ email });
  await app.services.workspaces.create({ name: unique('ws'), ownerId: user.id });
  return email;
}

describe('POST /signup/start: the same answer for every address', () => {
  it('answers a known, a new, an invited and a refused address alike, and does the same work before answering', async () => {
    const known = await existingUser();
    const owner = await existingUser();
    const ownerUser = await t.services.users.get(owner);
    const workspace = (await t.services.workspaces.create({ name: unique('ws'), ownerId: ownerUser.id })).id;
    const invited = `${unique('invited')}@example.test`;
    await t.services.members.invite({ userId: ownerUser.id, email: owner, workspaceId: workspace, role: 'owner' }, invited, 'editor');
    await t.services.background.idle();
    const stranger = `${unique('stranger')}@example.test`;

    const answers: Array<{ status: number; body: string; work: typeof stopped }> = [];
    for (const email of [known, stranger, invited, known.toUpperCase()]) {
      recording = [];
      const res = await start(email);
      answers.push({ status: res.statusCode, body: res.body, work: stopped });
    }
    expect(answers[0]!.status).toBe(202);
    expect(answers[0]!.work.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.status).toBe(answers[0]!.status);
      expect(answer.body).toBe(answers[0]!.body);
      // The same statements, in the same order, with as many parameters: no lookup that differs by address.
      expect(answer.work).toEqual(answers[0]!.work);
    }
    expect(JSON.parse(answers[0]!.body)).toEqual({
      status: 'accepted',
      message: expect.any(String),
      codeExpiresInSeconds: 900,
      verify: 'http://herald.test/public/v1/signup/verify',
    });
    // Only the known and the invited address get a code (invite policy).
    expect(mail.to(known)).toHaveLength(2);
    expect(mail.to(invited).filter((m) => m.subject.startsWith('Your Herald code'))).toHaveLength(1);
    expect(mail.to(stranger)).toHaveLength(0);
  });

  it('refuses a malformed address with a 400 in the validation shape', async () => {
    for (const payload of [{ email: 'not-an-address' }, {}, { email: 'a@b.c', extra: 1 }, { email: 42 }]) {
      const res = await t.request({ method: 'POST', url: START, payload });
      if (res.statusCode === 202) continue; // unknown fields may be ignored; the address itself is what must be well formed
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.anything() });
    }
    const bad = await t.request({ method: 'POST', url: START, payload: { email: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });
});

describe('codes', () => {
  it('signs in with the mailed code: a session cookie for the pages, HttpOnly and SameSite=Lax', async () => {
    const email = await existingUser();
    const waiting = mail.next(email);
    await start(email);
    const message = await waiting;
    expect(message.text).toContain(`http://herald.test/account/sign-in?email=${encodeURIComponent(email)}&code=${codeOf(message)}`);
    const res = await t.request({ method: 'POST', url: VERIFY, payload: { email, code: codeOf(message) } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ signedIn: true, created: false, user: { email }, next: 'http://herald.test/account/keys' });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^herald_session=[0-9A-Za-z]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    // The code works once.
    const again = await t.request({ method: 'POST', url: VERIFY, payload: { email, code: codeOf(message) } });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ msg: expect.any(String), code: 'invalid_code' });
  });

  it('marks the cookie Secure when BASE_URL is https', async () => {
    const secure = await createTestApp({ env: { SMTP_URL: mail.url, BASE_URL: 'https://herald.example' } });
    const email = await existingUser(secure);
    const waiting = mail.next(email);
    await start(email, secure);
    const res = await secure.request({ method: 'POST', url: VERIFY, payload: { email, code: codeOf(await waiting) } });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
    await secure.close();
  });

  it('keeps only a hash of the code', async () => {
    const email = await existingUser();
    const waiting = mail.next(email);
    await start(email);
    const code = codeOf(await waiting);
    const row = await t.runtime.db.selectFrom('sign_in_codes').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('expires a code after 15 minutes', async () => {
    const email = await existingUser();
    const waiting = mail.next(email);
    await start(email);
    const code = codeOf(await waiting);
    clock.advance(15 * 60_000);
    const res = await t.request({ method: 'POST', url: VERIFY, payload: { email, code } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_code');
  });

  it('kills a code after 5 wrong tries, even for the right code after them', async () => {
    const email = await existingUser();
    const waiting = mail.next(email);
    await start(email);
    const code = codeOf(await waiting);
    const wrong = code === '00000000' ? '11111111' : '00000000';
    for (let i = 0; i < 5; i += 1) {
      const res = await t.request({ method: 'POST', url: VERIFY, payload: { email, code: wrong } });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_code');
    }
    const res = await t.request({ method: 'POST', url: VERIFY, payload: { email, code } });
    expect(res.statusCode).toBe(400);
  });

  it('replaces the previous code with a new one', async () => {
    const email = await existingUser();
    let waiting = mail.next(email);
    await start(email);
    const first = codeOf(await waiting);
    waiting = mail.next(email);
    await start(email);
    const second = codeOf(await waiting);
    if (first !== second) {
      expect((await t.request({ method: 'POST', url: VERIFY, payload: { email, code: first } })).statusCode).toBe(400);
    }
    expect((await t.request({ method: 'POST', url: VERIFY, payload: { email, code: second } })).statusCode).toBe(200);
  });

  it('answers a code for an address that never asked like a wrong one', async () => {
    const res = await t.request({ method: 'POST', url: VERIFY, payload: { email: `${unique('never')}@example.test`, code: '12345678' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_code');
  });

  it('rate limits codes per address (the same answer for every address there too)', async () => {
    const known = await existingUser();
    const stranger = `${unique('stranger')}@example.test`;
    for (const email of [known, stranger]) {
      for (let i = 0; i < 5; i += 1) expect((await start(email)).statusCode).toBe(202);
      const res = await start(email);
      expect(res.statusCode).toBe(429);
      expect(res.json().code).toBe('rate_limited');
    }
    clock.advance(60 * 60_000);
    expect((await start(known)).statusCode).toBe(202);
    // After the answer, rows whose window and code are over are forgotten.
    const rows = await t.runtime.db.selectFrom('sign_in_codes').select('email').where('email', 'in', [known, stranger]).execute();
    expect(rows.map((r) => r.email)).toEqual([known]);
  });
});

describe('policies', () => {
  it('open: anyone signs up and gets a workspace of their own as owner', async () => {
    const open = await createTestApp({ env: { SMTP_URL: mail.url, SIGNUP: 'open' } });
    const email = `${unique('new')}@example.test`;
    const waiting = mail.next(email);
    await start(email, open);
    const res = await open.request({ method: 'POST', url: VERIFY, payload: { email, code: codeOf(await waiting) } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().created).toBe(true);
    const user = await open.services.users.get(email);
    const role = (
      await open.services.sessions.context({ id: 'x', userId: user.id, email, name: null, createdAt: '', expiresAt: '', workspaceId: null })
    ).current?.role;
    expect(role).toBe('owner');
    await open.close();
  });

  it('invite: a stranger gets nothing; an invited address signs up and joins with the invited role once it accepts', async () => {
    const stranger = `${unique('stranger')}@example.test`;
    await start(stranger);
    expect(mail.to(stranger)).toHaveLength(0);

    const owner = await t.services.users.get(await existingUser());
    const workspace = (await t.services.workspaces.create({ name: unique('ws'), ownerId: owner.id })).id;
    const invited = `${unique('invited')}@example.test`;
    const invitation = mail.next(invited);
    await t.services.members.invite(
      { userId: owner.id, email: owner.email, workspaceId: workspace, role: 'owner' },
      invited,
      'contributor',
    );
    expect((await invitation).text).toContain(`http://herald.test/account/sign-in?email=${encodeURIComponent(invited)}`);
    const codeMail = mail.next(invited);
    await start(invited);
    const res = await t.request({ method: 'POST', url: VERIFY, payload: { email: invited, code: codeOf(await codeMail) } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().created).toBe(true);
    const user = res.json().user as { id: string; email: string };
    expect(await t.services.workspaces.roleOf(workspace, user.id)).toBeNull();
    const [waiting] = await t.services.members.received(user);
    await t.services.members.accept(user, waiting!.id);
    expect(await t.services.workspaces.roleOf(workspace, user.id)).toBe('contributor');
  });

  it('closed: only existing users get a code; the answer stays the same; per client address the route is rate limited', async () => {
    const closed = await createTestApp({ env: { SMTP_URL: mail.url, SIGNUP: 'closed' } });
    const known = await existingUser(closed);
    const stranger = `${unique('stranger')}@example.test`;
    const a = await start(known, closed);
    const b = await start(stranger, closed);
    expect([a.statusCode, a.body]).toEqual([b.statusCode, b.body]);
    expect(mail.to(known)).toHaveLength(1);
    expect(mail.to(stranger)).toHaveLength(0);
    // Ten per client address and minute by default; the eleventh, whatever the address, is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) statuses.push((await start(`${unique('burst')}@example.test`, closed)).statusCode);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    const other = await closed.request({ method: 'POST', url: START, payload: { email: stranger }, remoteAddress: '127.0.0.9' });
    expect(other.statusCode).toBe(202);
    await closed.close();
  });
});
