import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import type { Role } from '../../src/auth/scopes.ts';
import { TEST_WEBHOOK_SECRET, unique, type TestApp } from '../helpers/app.ts';
import { BROWSER_TEST_MS, recordProblems, servedToChromium } from '../helpers/browser.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import { processBudget } from '../helpers/process.ts';
import { appContext, sessionApi, signedInContext, signInToApp } from '../helpers/web-app.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

type Mail = Awaited<ReturnType<typeof startMailServer>>;
type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

export interface SuiteOptions {
  /** Where the file's screenshots go (created). */
  artifacts: string;
  /** A local SMTP server for the mailed sign-in codes (SMTP_URL). */
  mail?: boolean;
  /** A local webhook receiver, for webhook channels (and loopback outbound calls allowed). */
  receiver?: boolean;
  /** The publishing engine, as the server runs it. */
  engine?: boolean;
  env?: Record<string, string>;
}

/** The server, Chromium and the local fakes of one test file: filled in by its `beforeAll`. */
export interface BrowserSuite {
  t: TestApp;
  origin: string;
  browser: Browser;
  mail: Mail;
  receiver: Receiver;
  problems: { pageErrors: string[]; cspViolations: string[] };
  /** A fresh browser context with `options`, its page recording script errors and CSP violations. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
}

/**
 * Registers a browser test file's hooks: the real server on a loopback port (with the local mail
 * server and webhook receiver it asks for) and Debian's headless Chromium; after the file,
 * everything is closed and no page may have had a script error or a CSP violation.
 */
export function browserSuite(options: SuiteOptions): BrowserSuite {
  vi.setConfig({ testTimeout: BROWSER_TEST_MS });
  const suite = { problems: { pageErrors: [], cspViolations: [] } } as unknown as BrowserSuite;
  suite.newPage = async (contextOptions) =>
    recordProblems(await (await suite.browser.newContext(contextOptions)).newPage(), suite.problems);

  beforeAll(
    async () => {
      const env: Record<string, string> = { ...options.env };
      if (options.mail) {
        suite.mail = await startMailServer();
        env.SMTP_URL = suite.mail.url;
      }
      if (options.receiver) {
        suite.receiver = await startWebhookReceiver();
        env.OUTBOUND_ALLOW_LOOPBACK = 'true';
      }
      Object.assign(suite, await servedToChromium(options.artifacts, { engine: options.engine, env }));
    },
    processBudget(1, 60_000),
  );

  afterAll(async () => {
    await suite.browser?.close();
    await suite.t?.close();
    await suite.mail?.close();
    await suite.receiver?.close();
    expect(suite.problems.pageErrors).toEqual([]);
    expect(suite.problems.cspViolations).toEqual([]);
  });
  return suite;
}

/** The web app's browser tests (`app-*.browser.test.ts`): a browser suite with a mail server, and the people and channels they start from. */
export function appSuite(options: Omit<SuiteOptions, 'mail'>) {
  const suite = browserSuite({ ...options, mail: true });
  return Object.assign(suite, {
    /** A new account (`name` makes its address unique) and, unless `workspaceName` is null, a workspace it owns. */
    async owner(name: string, workspaceName: string = unique(name)) {
      const email = `${unique(name)}@example.test`;
      const user = await suite.t.services.users.create({ email });
      const workspace = await suite.t.services.workspaces.create({ name: workspaceName, ownerId: user.id });
      return { email, user, workspace };
    },
    /** A new account with `role` in the workspace. */
    async member(workspaceId: string, role: Role) {
      const email = `${unique(role)}@example.test`;
      const user = await suite.t.services.users.create({ email });
      await suite.t.services.workspaces.addMember(workspaceId, user.id, role);
      return { email, user };
    },
    /** Signs in through the browser (the mailed code) and lands on the calendar. */
    async signIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
      const { context, page } = await appContext(suite.browser, suite.problems);
      await signInToApp(page, suite.origin, suite.mail, email);
      return { context, page };
    },
    /** A page signed in as `email` (the session's cookie from the sign-in pages over HTTP), opened at `where`. */
    async open(email: string, where: string): Promise<Page> {
      const context = await signedInContext(suite.browser, suite.t, suite.mail, suite.origin, email);
      const page = recordProblems(await context.newPage(), suite.problems);
      await page.goto(`${suite.origin}${where}`);
      return page;
    },
    /** The public API as the app calls it from `page` (its session and CSRF token, unless `csrf` is false). */
    api(page: Page, method: string, url: string, data?: unknown, csrf = true) {
      return sessionApi(page, suite.origin, method, url, data, csrf);
    },
    /** A webhook channel named `name`, connected through the API from `page`, to the local receiver: its id. */
    async connectHook(page: Page, name = 'Hook'): Promise<string> {
      const connected = await sessionApi(page, suite.origin, 'POST', '/integrations/connect', {
        provider: 'webhook',
        name,
        url: suite.receiver.url,
      });
      expect(connected.status, JSON.stringify(connected.body)).toBe(200);
      return (connected.body.integration as { id: string }).id;
    },
    /** A webhook channel made in the workspace directly, to `url` (a name that resolves nowhere unless given). */
    hookChannel(workspaceId: string, name = 'Hook', url = 'https://hooks.example.test/in') {
      return suite.t.services.channels.create(workspaceId, { provider: 'webhook', name, config: { url, secret: TEST_WEBHOOK_SECRET } });
    },
  });
}
