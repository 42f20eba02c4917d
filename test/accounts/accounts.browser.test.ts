import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unique, type TestApp } from '../helpers/app.ts';
import { codeOf, startMailServer } from '../helpers/mail-server.ts';
import { recordProblems, servedToChromium, shootBothWidths, BROWSER_TEST_MS } from '../helpers/browser.ts';
import { processBudget } from '../helpers/process.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

/**
 * The account pages in real headless Chromium (Debian's `chromium`) against the real server on
 * loopback, with a real SMTP server: sign up with the mailed code, make a key and use it, rotate
 * and revoke it, invite a member who signs in and accepts. Screenshots of each page, at a desktop's and a
 * phone's width, go to test-artifacts/accounts/.
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/accounts/', import.meta.url));

let t: TestApp;
let origin: string;
let browser: Browser;
let mail: Awaited<ReturnType<typeof startMailServer>>;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

beforeAll(
  async () => {
    mail = await startMailServer();
    ({ t, origin, browser } = await servedToChromium(ARTIFACTS, { env: { SMTP_URL: mail.url, SIGNUP: 'open' } }));
  },
  processBudget(1, 30_000),
);

afterAll(async () => {
  await browser?.close();
  expect(pageErrors).toEqual([]);
  expect(cspViolations).toEqual([]);
});

async function newContext(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = recordProblems(await context.newPage(), { pageErrors, cspViolations });
  return { context, page };
}

const shoot = (page: Page, name: string) => shootBothWidths(page, ARTIFACTS, name);

async function signInWithMailedCode(page: Page, email: string, screenshots: boolean): Promise<void> {
  await page.goto(`${origin}/account/sign-in`);
  if (screenshots) await shoot(page, 'sign-in');
  await page.fill('#email', email);
  const waiting = mail.next(email);
  await Promise.all([page.waitForURL(/\/account\/sign-in\?email=/), page.click('button[type=submit]')]);
  const code = codeOf(await waiting);
  if (screenshots) await shoot(page, 'code');
  await page.fill('#code', code);
  await Promise.all([page.waitForURL(/\/account\/keys$/), page.click('form[action="/account/sign-in/verify"] button[type=submit]')]);
}

const api = (key: string) => fetch(`${origin}/public/v1/integrations`, { headers: { authorization: key } }).then((res) => res.status);

describe('account pages in a browser', () => {
  it('sign up with the mailed code, create a key, see it once, use it, rotate it, revoke it', async () => {
    const { context, page } = await newContext();
    const email = `${unique('ana')}@example.test`;
    await signInWithMailedCode(page, email, true);
    await shoot(page, 'keys-empty');

    await page.fill('#key-name', 'Publishing script');
    await page.click('form[action="/account/keys"] button[type=submit]');
    const secret = (await page.locator('#new-secret').innerText()).trim();
    expect(secret).toMatch(/^svc_[0-9A-Za-z]{16}_[0-9A-Za-z]{40}$/);
    await page.click('button[data-copy="new-secret"]');
    await expect.poll(() => page.locator('button[data-copy="new-secret"]').innerText()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await shoot(page, 'key-created');
    expect(await api(secret)).toBe(200);

    // Shown once: a fresh view of the page does not have it.
    await page.goto(`${origin}/account/keys`);
    expect(await page.locator('#new-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await shoot(page, 'keys');

    await page.click('form[action$="/rotate"] button');
    await shoot(page, 'confirm-rotate');
    expect(await api(secret)).toBe(200);
    await page.click('#confirm');
    const rotated = (await page.locator('#new-secret').innerText()).trim();
    expect(rotated).not.toBe(secret);
    expect(await api(secret)).toBe(401);
    expect(await api(rotated)).toBe(200);

    await page.click('form[action$="/revoke"] button');
    await page.click('#confirm-cancel');
    expect(await api(rotated)).toBe(200);
    await page.click('form[action$="/revoke"] button');
    await page.click('#confirm');
    await expect.poll(() => page.locator('.banner.good').count()).toBe(1);
    expect(await api(rotated)).toBe(401);
    expect(await page.locator('[data-key-id]').count()).toBe(0);
    await context.close();
  });

  it('invite a member, who signs in and switches between workspaces', async () => {
    const owner = await newContext();
    const ownerEmail = `${unique('owner')}@example.test`;
    await signInWithMailedCode(owner.page, ownerEmail, false);
    await owner.page.click('nav a[href="/account/members"]');
    const invited = `${unique('bob')}@example.test`;
    await owner.page.fill('#invite-email', invited);
    await owner.page.selectOption('#invite-role', 'editor');
    const invitation = mail.next(invited);
    await owner.page.click('form[action="/account/members/invite"] button[type=submit]');
    await expect.poll(() => owner.page.locator(`[data-invitation="${invited}"]`).count()).toBe(1);
    await shoot(owner.page, 'members');
    const link = /(http:\/\/\S+\/account\/sign-in\?email=\S+)/.exec((await invitation).text)![1]!;

    // The member follows the mail's link: the address is filled in, the code comes by mail.
    const member = await newContext();
    const waiting = mail.next(invited);
    await member.page.goto(link);
    await member.page.click('form[action="/account/sign-in"] button[type=submit]');
    const code = codeOf(await waiting);
    await member.page.fill('#code', code);
    await Promise.all([
      member.page.waitForURL(/\/account\/keys$/),
      member.page.click('form[action="/account/sign-in/verify"] button[type=submit]'),
    ]);
    // A new account (open sign-up) gets a workspace of its own; the invitation waits for an answer, naming who sent it.
    expect(await member.page.locator('main').innerText()).toContain('where your role is owner');
    expect(await member.page.locator('[data-received-invitation]').innerText()).toContain(ownerEmail);
    await shoot(member.page, 'invitation');
    await member.page.click('[data-received-invitation] form[action$="/accept"] button[type=submit]');
    await expect.poll(() => member.page.locator('main').innerText()).toContain('where your role is editor');
    // In two workspaces now, the switcher appears.
    await member.page.goto(`${origin}/account/keys`);
    const options = await member.page.locator('#workspace-switch option').allInnerTexts();
    expect(options).toHaveLength(2);
    await shoot(member.page, 'keys-switcher');
    const ownerWorkspace = (
      await t.services.sessions.context({
        id: '',
        userId: (await t.services.users.get(ownerEmail)).id,
        email: ownerEmail,
        name: null,
        createdAt: '',
        expiresAt: '',
        workspaceId: null,
      })
    ).current!.workspace;
    await member.page.selectOption('#workspace-switch', ownerWorkspace.id);
    await member.page.click('form.switcher button[type=submit]');
    await expect
      .poll(() => member.page.locator('main').innerText())
      .toContain(`Your keys in ${ownerWorkspace.name}, where your role is editor`);

    await owner.page.reload();
    expect(await owner.page.locator(`[data-member="${invited}"]`).count()).toBe(1);
    await owner.context.close();
    await member.context.close();
  });
});
