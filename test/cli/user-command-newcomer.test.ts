import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { png } from '../helpers/media-files.ts';
import { heraldInProcess, IN_PROCESS_MS } from '../helpers/process.ts';
import { userCommandServer } from '../helpers/user-command.ts';

/**
 * What a newcomer meets first with the `herald` command: channels named as they are listed, the
 * posts just made in the default listing, previews that read as the post, uploads that carry on
 * past a bad file, and refusals worded with the command's own flags.
 */

let t: TestApp;
let tenant: Awaited<ReturnType<typeof userCommandServer>>['tenant'];
let news: { id: string };
let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  let url: string;
  ({ t, url, tenant, news } = await userCommandServer());
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-newcomer-'));
  env = { XDG_CONFIG_HOME: path.join(home, 'config'), TZ: 'UTC', HERALD_URL: url, HERALD_API_KEY: tenant.key };
});

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

const cli = (args: string[], input = '') => heraldInProcess(args, env, input);
const api = async (p: string) => (await t.request({ method: 'GET', url: `/public/v1${p}`, key: tenant.key })).json();

async function created(args: string[]): Promise<string> {
  const run = await cli(['posts', 'create', ...args, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as Array<{ postId: string }>)[0]!.postId;
}

describe('the herald command for a newcomer', () => {
  it(
    "takes a channel by ID, name or @handle in `channels settings` and `channels trigger`, and shows the channel's name beside the platform's",
    async () => {
      const runs = await Promise.all([
        cli(['channels', 'settings', 'News Desk']),
        cli(['channels', 'settings', '@acme-news', '--json']),
        cli(['channels', 'settings', 'acme-news', '--json']),
        cli(['channels', 'settings', news.id, '--json']),
        cli(['channels', 'trigger', '@acme-news', 'ping', '--json']),
        cli(['channels', 'settings', 'Nobody']),
        cli(['channels', 'trigger', 'Nobody', 'ping']),
      ]);
      const [byName, byHandle, byBareHandle, byId, trigger, unknown, unknownTrigger] = runs;
      for (const run of runs.slice(0, 5)) expect(run.code, run.stderr).toBe(0);
      expect(byName!.stdout).toMatch(new RegExp(`^channel: +News Desk \\(${news.id}\\)\\nplatform: +\\S.* \\(webhook\\)\\n`));
      const exact = await api(`/integration-settings/${news.id}`);
      for (const run of [byHandle, byBareHandle, byId]) expect(JSON.parse(run!.stdout)).toEqual(exact);
      expect(JSON.parse(trigger!.stdout)).toMatchObject({ ok: true });
      for (const run of [unknown, unknownTrigger]) {
        expect(run!.code).toBe(2);
        expect(run!.stderr).toBe(
          'herald: Unknown channel "Nobody": no channel has this ID, name or handle. Run `herald channels list` to see them.\n',
        );
      }
    },
    IN_PROCESS_MS,
  );

  it(
    'lists, with no range, what was just drafted and what is coming this week, by channel name; the preview keeps words apart as the post does',
    async () => {
      const inSixDays = new Date(Date.now() + 6 * 24 * 3600_000).toISOString();
      const [draft, upcoming] = await Promise.all([
        created(['We launch **today**.', '--format', 'markdown', '-c', '@acme-news']),
        created(['Later this week', '-c', 'Hook', '--at', inSixDays]),
      ]);
      const byId = await cli(['posts', 'create', 'Named', '-c', news.id]);
      expect(byId.stdout).toMatch(new RegExp(`\\n\\S+ +News Desk \\(${news.id}\\)\\n$`));
      const [list, listJson, get] = await Promise.all([
        cli(['posts', 'list']),
        cli(['posts', 'list', '--json']),
        cli(['posts', 'get', draft]),
      ]);
      for (const run of [list, listJson, get]) expect(run.code, run.stderr).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`\\n${draft} +DRAFT +\\S+ \\S+ UTC +webhook +News Desk +\\S+ +We launch today\\.\\n`));
      expect(list.stdout).toMatch(new RegExp(`\\n${upcoming} +QUEUE +\\S+ \\S+ UTC +webhook +Hook +\\S+ +Later this week\\n`));
      expect(list.stdout).not.toContain(news.id);
      expect((JSON.parse(listJson.stdout) as { posts: Array<{ id: string }> }).posts.map((p) => p.id)).toEqual(
        expect.arrayContaining([draft, upcoming]),
      );
      expect(get.stdout).toMatch(new RegExp(`\\nchannel: +News Desk \\(${news.id}\\)\\nplatform: +webhook\\n`));
      expect(get.stdout).toContain('post: [PENDING] We launch today.\n');
      // What goes out is the same text.
      expect(((await api(`/posts/${draft}`)) as { content: string }).content).toBe('<p>We launch <strong>today</strong>.</p>');
    },
    IN_PROCESS_MS,
  );

  it(
    'uploads every file it can, reports each failure with its reason, and exits non-zero when any failed',
    async () => {
      const good = path.join(home, 'a.png');
      const other = path.join(home, 'c.png');
      const text = path.join(home, 'b.txt');
      const missing = path.join(home, 'missing.png');
      fs.writeFileSync(good, png(9, 9, [10, 200, 10]));
      fs.writeFileSync(other, png(9, 10, [10, 10, 200]));
      fs.writeFileSync(text, 'not a picture\n');
      const [plain, json, allBad] = await Promise.all([
        cli(['upload', good, text, missing, other]),
        cli(['upload', text, good, '--json']),
        cli(['upload', missing]),
      ]);

      expect(plain.code).toBe(3);
      const rows = plain.stdout.trim().split('\n');
      expect(rows[0]).toMatch(/^FILE +ID +PATH$/);
      expect(rows.slice(1).map((r) => r.split(/ +/)[0])).toEqual([good, other]);
      for (const row of rows.slice(1)) expect(row).toMatch(/ http:\/\/herald\.test\/\S+$/);
      expect(plain.stderr).toMatch(
        new RegExp(
          `^herald: ${text.replace(/\./g, '\\.')}: The file "b\\.txt" is .+ \\(HTTP 4\\d\\d\\)\\nherald: No such file: ${missing.replace(/\./g, '\\.')}\\n$`,
        ),
      );

      expect(json.code).toBe(3);
      expect(JSON.parse(json.stdout)).toEqual([
        { file: good, id: expect.any(String), path: expect.stringMatching(/^http:\/\/herald\.test\//) },
      ]);
      expect(JSON.parse(json.stderr)).toMatchObject({
        file: text,
        status: expect.any(Number),
        error: { msg: expect.stringContaining('b.txt') },
      });

      expect(allBad.code).toBe(2);
      expect(allBad.stdout).toBe('Nothing uploaded.\n');
      const library = (await api('/media')) as { results: Array<{ name: string }> };
      expect(library.results.map((m) => m.name)).toEqual(expect.arrayContaining(['a.png', 'c.png']));
      expect(library.results.map((m) => m.name)).not.toContain('b.txt');
    },
    IN_PROCESS_MS,
  );

  it(
    "words the API's refusals with the command's flags, and prints the API's own body with --json",
    async () => {
      const pastDraft = await created(['Old news', '-c', news.id, '--draft', '--at', '2020-01-01T00:00:00Z']);
      const runs = await Promise.all([
        cli(['posts', 'create', 'Too late', '-c', news.id, '--at', '2020-01-01T00:00:00Z']),
        cli(['posts', 'create', 'Too late', '-c', news.id, '--at', '2020-01-01T00:00:00Z', '--json']),
        cli(['posts', 'create', 'Pictured', '-c', news.id, '--image', 'https://elsewhere.example/cat.png']),
        cli(['posts', 'list', '--cursor', 'not-a-cursor']),
        cli(['posts', 'list', '--from', '2031-02-01', '--to', '2031-01-01']),
        cli(['posts', 'list', '--from', '2031-01-01', '--to', '2033-01-01']),
        cli(['posts', 'status', pastDraft, 'schedule']),
        cli(['media', 'list', '--page', '9999', '--page-size', '100']),
        cli(['channels', 'trigger', news.id, 'no_such_tool']),
        cli(['posts', 'release-id', pastDraft, 'remote-1', '--release-url', 'not a url']),
      ]);
      const [past, pastJson, image, cursor, backwards, tooLong, schedule, page, tool, release] = runs;
      for (const run of runs.filter((r) => r !== pastJson)) {
        expect(run.code, run.stdout).toBe(3);
        expect(run.stderr).toMatch(/^herald: .+ \(HTTP 4\d\d\)\n$/);
        expect(run.stderr).not.toMatch(
          /type "now"|integration\.id|startDate|endDate|pageSize|methodName|releaseURL|POST \/|(?<!-)\bcursor:/,
        );
      }
      expect(past!.stderr).toMatch(/is in the past; schedule for a later time or use --now\. \(HTTP 400\)/);
      expect(JSON.parse(pastJson!.stderr)).toMatchObject({
        status: 400,
        error: { code: 'date_in_past', msg: expect.stringContaining('use type "now"') },
      });
      expect(image!.stderr).toContain(
        "--image https://elsewhere.example/cat.png: not a file of this workspace's media library; give a local file (it is uploaded first)",
      );
      expect(cursor!.stderr).toContain('--cursor: not a cursor this command printed');
      expect(backwards!.stderr).toContain('--to is before --from.');
      expect(tooLong!.stderr).toContain('The window from --from to --to is longer than one year');
      expect(schedule!.stderr).toContain('give it a later date (`herald posts edit <id> --at …`)');
      expect(page!.stderr).toMatch(/^herald: --page: .* with --page-size 100 the last page is 99\./);
      expect(tool!.stderr).toContain('Unknown tool "no_such_tool"');
      expect(release!.stderr).toMatch(/^herald: --release-url: /);
    },
    IN_PROCESS_MS,
  );
});
