import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { freePort } from '../../bench/lib.ts';
import { createTestApp, type TestApp } from './app.ts';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * A browser test's timeout (set per file with `vi.setConfig`): Chromium shares the 2 cores with the
 * server and the other test files, and a page's screenshot and axe-core check can take many seconds
 * on a loaded machine. It bounds a hang; it is never a speed check.
 */
export const BROWSER_TEST_MS = 120_000;

/** Debian's headless Chromium, allowed to reach loopback only. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does.`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}

/** A test app listening on a loopback port (BASE_URL is its origin), Chromium to visit it, and the directory for its screenshots. */
export async function servedToChromium(
  artifacts: string,
  options: Parameters<typeof createTestApp>[0] = {},
): Promise<{ t: TestApp; origin: string; browser: Browser }> {
  fs.mkdirSync(artifacts, { recursive: true });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...options, env: { ...options.env, BASE_URL: origin } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, origin, browser: await launchChromium() };
}

/** A desktop and a phone screenshot of the page as it is, into `dir`; at the phone's width nothing may stick out. */
export async function shootBothWidths(page: Page, dir: string, name: string): Promise<void> {
  await page.screenshot({ path: path.join(dir, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 360, height: 740 });
  const widths = (await page.evaluate(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  )) as { scroll: number; client: number };
  await page.screenshot({ path: path.join(dir, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
  expect(widths.scroll, `${name} is wider than a phone`).toBeLessThanOrEqual(widths.client);
}

/** Collects the page's script errors and Content Security Policy violations (tests expect none). */
export function recordProblems(page: Page, problems: { pageErrors: string[]; cspViolations: string[] }): Page {
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.cspViolations.push(message.text());
  });
  return page;
}

const NAMED_ROLES = new Set(['button', 'link', 'textbox', 'combobox', 'checkbox', 'radio', 'searchbox', 'spinbutton', 'listbox', 'slider']);

/**
 * What Chromium's accessibility tree says is wrong with the page, as sentences (tests expect
 * none): a control or link without an accessible name, no or several `h1`, no `lang`. A few of
 * axe-core's rules, read from the browser itself.
 */
let axeSource: string | undefined;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
type AxeEngine = {
  run(context: unknown, options: object): Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown }> }> }>;
};

/**
 * axe-core's WCAG 2.x A and AA rules over the page as it is now, one line per rule broken with the
 * places it found. The engine is evaluated through the DevTools protocol, which the pages' content
 * security policy does not govern, so the pages are checked exactly as they are served.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async (tags) => {
    const { axe, document } = globalThis as unknown as { axe: AxeEngine; document: unknown };
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => String(n.target)) }));
  }, AXE_TAGS);
  return violations.map((v) => `axe ${v.id}: ${v.help} (${v.targets.slice(0, 5).join(', ')})`);
}

export async function accessibilityProblems(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: Array<{
        ignored: boolean;
        role?: { value: string };
        name?: { value: string };
        properties?: Array<{ name: string; value: { value: unknown } }>;
      }>;
    };
    const problems: string[] = [];
    for (const node of nodes) {
      const role = node.role?.value ?? '';
      if (node.ignored || !NAMED_ROLES.has(role)) continue;
      if (!String(node.name?.value ?? '').trim()) problems.push(`a ${role} without a name`);
    }
    const shell = (await page.evaluate('({ h1: document.querySelectorAll("h1").length, lang: document.documentElement.lang })')) as {
      h1: number;
      lang: string;
    };
    if (shell.h1 !== 1) problems.push(`${shell.h1} h1 headings`);
    if (!shell.lang) problems.push('no lang on <html>');
    return [...problems, ...(await axeViolations(page))];
  } finally {
    await cdp.detach();
  }
}
