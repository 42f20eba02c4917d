// The web app: the first view's bytes as a browser receives them (gzip and brotli), and the
// calendar's month view with 1,000 posts in range rendered by headless Chromium.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { appBuild, type AppBuild } from '../src/web/app-assets.ts';
import { SESSION_COOKIE } from '../src/web/session.plugin.ts';
import { API_ENV, HERALD_ROOT, seed, startServer } from './herald-api.ts';
import { median, stop } from './lib.ts';

const POSTS = 1000;

/** The files a chunk imports statically (esbuild's ESM output: `from"./chunks/…js"`), relative to the build's root. */
function staticImports(build: AppBuild, name: string): string[] {
  const text = build.files.get(name)!.body.toString('utf8');
  const dir = path.posix.dirname(name);
  return [...text.matchAll(/(?:from|import)\s*"(\.\.?\/[^"]+\.js)"/g)].map((m) => path.posix.normalize(path.posix.join(dir, m[1]!)));
}

/** The chunk a dynamic `import("./chunks/<prefix>-….js")` of the entry loads. */
function dynamicImport(build: AppBuild, prefix: string): string {
  const text = build.files.get(build.script)!.body.toString('utf8');
  const found = [...text.matchAll(/import\("(\.\/chunks\/[^"]+\.js)"\)/g)]
    .map((m) => path.posix.normalize(m[1]!))
    .find((f) => path.posix.basename(f).startsWith(`${prefix}-`));
  if (!found) throw new Error(`the entry loads no ${prefix} chunk`);
  return found;
}

function closure(build: AppBuild, roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const next of staticImports(build, name)) visit(next);
  };
  roots.forEach(visit);
  return [...seen];
}

function sizes(build: AppBuild, names: string[]) {
  let raw = 0;
  let gzip = 0;
  let brotli = 0;
  for (const name of names) {
    const body = build.files.get(name)!.body;
    raw += body.length;
    gzip += gzipSync(body, { level: 9 }).length;
    brotli += brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  }
  const kb = (n: number) => Math.round(n / 102.4) / 10;
  return { files: names.length, minifiedKB: kb(raw), gzipKB: kb(gzip), brotliKB: kb(brotli) };
}

/** What the first view (/app, the calendar) needs: the entry, its static imports, the stylesheet, and the calendar's chunk with its imports. */
export async function bundleFigures() {
  const build = await appBuild();
  const css = build.stylesheet ? [build.stylesheet] : [];
  const shell = [...closure(build, [build.script]), ...css];
  const firstView = [...new Set([...shell, ...closure(build, [dynamicImport(build, 'calendar')])])];
  const perView = Object.fromEntries(
    ['composer', 'post-detail', 'media-view', 'channels-view', 'notifications-view', 'analytics-view'].map((view) => {
      const own = closure(build, [dynamicImport(build, view)]).filter((f) => !shell.includes(f));
      return [view, sizes(build, own)];
    }),
  );
  return { shell: sizes(build, shell), firstView: sizes(build, firstView), onDemand: perView, budgetKB: 150 };
}

/** 1,000 posts over this month on 10 channels; the month view opened `runs` times; data arrival → events drawn and painted. */
export async function monthRenderFigures(runs: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-webapp-bench-'));
  const env = { ...API_ENV, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const key = await seed(dataDir, env);
  const runtime = await openRuntime(loadConfig(env));
  const user = await runtime.db.selectFrom('users').select('id').where('email', '=', 'bench@example.test').executeTakeFirstOrThrow();
  const { token } = await runtime.services.sessions.create(user.id);
  await runtime.close();
  const { child, url } = await startServer(path.join(HERALD_ROOT, 'bin', 'herald.js'), { ...env, BASE_URL: 'http://127.0.0.1' });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const auth = { authorization: key, 'content-type': 'application/json' };
    const channels = (await (await fetch(`${url}/public/v1/integrations`, { headers: auth })).json()) as Array<{ id: string }>;
    const now = new Date();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    for (let i = 0; i < POSTS / channels.length; i++) {
      // Spread over the month's first 28 days, at hours through the day.
      const date = new Date(monthStart + (i % 28) * 86_400_000 + (8 + (i % 12)) * 3_600_000 + 60_000 * i).toISOString();
      const res = await fetch(`${url}/public/v1/posts`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          type: 'draft',
          date,
          posts: channels.map((c) => ({ integration: { id: c.id }, value: [{ content: `<p>Post ${i}</p>` }] })),
        }),
      });
      if (!res.ok) throw new Error(`POST /posts answered ${res.status}: ${await res.text()}`);
    }
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' });
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url }]);
    // In the page: when the posts' answer has been read, and the first frame after the calendar drew its events where they
    // go (FullCalendar first adds each event hidden, measures it, then places it: an event that is not hidden is placed).
    await context.addInitScript(`(() => {
      const text = Response.prototype.text;
      const placed = () => [...document.querySelectorAll('.fc-daygrid-event-harness')].some((h) => h.style.visibility !== 'hidden');
      Response.prototype.text = async function () {
        const body = await text.call(this);
        if (this.url.includes('/public/v1/posts?')) {
          window.__dataAt = performance.now();
          const look = () => placed()
            ? requestAnimationFrame(() => { window.__drawnAt = performance.now(); })
            : requestAnimationFrame(look);
          requestAnimationFrame(look);
        }
        return body;
      };
    })()`);
    const page = await context.newPage();
    const renders: number[] = [];
    let postCalls = 0;
    page.on('request', (request) => {
      if (/\/public\/v1\/posts\?/.test(request.url())) postCalls++;
    });
    for (let run = 0; run < runs; run++) {
      postCalls = 0;
      await page.goto(`${url}/app`);
      // Polled with evaluate (the DevTools protocol): waitForFunction evaluates strings in the page, which its CSP refuses.
      for (const deadline = Date.now() + 60_000; !(await page.evaluate('window.__drawnAt !== undefined'));) {
        if (Date.now() > deadline) throw new Error('the month view drew no event within 60 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      renders.push(Number(await page.evaluate('window.__drawnAt - window.__dataAt')));
      if (postCalls !== 1) throw new Error(`the month view made ${postCalls} calls to GET /posts`);
    }
    const shown = Number(await page.evaluate('document.querySelectorAll(".fc-daygrid-event").length'));
    const visible = Number(
      await page.evaluate(
        '[...document.querySelectorAll(".fc-daygrid-event-harness")].filter((h) => h.style.visibility !== "hidden").length',
      ),
    );
    return {
      posts: POSTS,
      runs,
      postCallsPerView: 1,
      eventsDrawn: shown,
      eventsVisible: visible,
      firstRenderAfterDataMs: { median: Math.round(median(renders)), max: Math.round(Math.max(...renders)), all: renders.map(Math.round) },
      budgetMs: 500,
      loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
    };
  } finally {
    await browser.close();
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function webappBench(options: { runs: number }) {
  const loadBefore = os.loadavg().map((n) => Math.round(n * 100) / 100);
  return { bundle: await bundleFigures(), monthView: await monthRenderFigures(options.runs), loadAverageBefore: loadBefore };
}
