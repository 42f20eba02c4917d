import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { png } from '../helpers/media-files.ts';
import { HERALD_BIN, herald, heraldInProcess, IN_PROCESS_MS, processBudget, PROCESS_BUDGET_MS } from '../helpers/process.ts';
import { webhookTenant } from '../helpers/posts.ts';
import { userCommandServer } from '../helpers/user-command.ts';

/**
 * The `herald` command for users against a real server listening on loopback. Most runs go
 * through the client's own entry inside this process (the same program, parsing and exit codes,
 * at a fraction of the cost of starting Node); a few are spawned for real (the built bundle
 * through bin/herald.js) to show that the command itself prints, reads and exits the same way.
 */

let t: TestApp;
let url: string;
let tenant: Awaited<ReturnType<typeof webhookTenant>>;
let news: { id: string };
let group: { id: string };
let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  ({ t, url, tenant, group, news } = await userCommandServer());
  await t.services.notifications.notify(tenant.workspaceId, { kind: 'limit_warning', message: "You have used 90% of this month's posts." });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-user-'));
  // A clean environment for the command: its own config folder and no credential from the runner.
  env = { XDG_CONFIG_HOME: path.join(home, 'config'), TZ: 'UTC' };
});

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

/** `herald …` run in this process with its own config folder; `extra` may name the instance and key in HERALD_URL/HERALD_API_KEY. */
function cli(args: string[], input = '', extra: Record<string, string> = {}) {
  return heraldInProcess(args, { ...env, ...extra }, input);
}

/** The same, spawned for real. */
function spawned(args: string[], input = '', extra: Record<string, string> = {}) {
  return herald(args, { ...env, ...extra }, input);
}

async function json<T = unknown>(args: string[], input = ''): Promise<T> {
  const result = await cli([...args, '--json'], input);
  if (result.code !== 0) throw new Error(`herald ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

const api = async (p: string) => (await t.request({ method: 'GET', url: `/public/v1${p}`, key: tenant.key })).json();

describe('the herald command for users', () => {
  it(
    'logs in with a key from standard input into a file only its owner can read, and refuses a bad key',
    async () => {
      // The browser login (OAuth device flow) is tested with the OAuth pages, in Chromium.
      const [noUrl, bad] = await Promise.all([cli(['login']), cli(['login', '--key', '--url', url], 'svc_not_a_real_key\n')]);
      expect(noUrl.code).toBe(2);
      expect(noUrl.stderr).toContain('--url');
      expect(bad.code).toBe(3);
      expect(bad.stderr).toMatch(/^herald: .+ \(HTTP 401\)\n$/);
      const file = path.join(env.XDG_CONFIG_HOME!, 'herald', 'credentials.json');
      expect(fs.existsSync(file)).toBe(false);

      const login = await cli(['login', '--key', '--url', `${url}/`], `${tenant.key}\n`);
      expect(login.code, login.stderr).toBe(0);
      expect(login.stdout).toContain(`Logged in to ${url} (profile default)`);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { url, kind: 'apiKey', key: tenant.key } } });
    },
    IN_PROCESS_MS,
  );

  it(
    'answers whoami, status, workspaces, channels, groups and notifications in words and in exact JSON',
    async () => {
      const runs = await Promise.all(
        [
          ['whoami'],
          ['status'],
          ['workspaces'],
          ['channels', 'list'],
          ['channels', 'list', '--group', group.id],
          ['channels', 'settings', news.id],
          ['groups', 'list'],
          ['notifications'],
        ].flatMap((args) => [cli(args), cli([...args, '--json'])]),
      );
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const [
        whoami,
        whoamiJson,
        status,
        statusJson,
        workspaces,
        workspacesJson,
        channels,
        channelsJson,
        grouped,
        groupedJson,
        settings,
        settingsJson,
        groups,
        groupsJson,
        notes,
        notesJson,
      ] = runs.map((r) => r.stdout) as string[] as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      expect(whoami).toMatch(/instance: +Herald at http:\/\/127\.0\.0\.1/);
      expect(whoami).toMatch(/workspace: .+ role owner/);
      expect(whoami).toMatch(
        /scopes: +analytics:read, channels:read, channels:write, media:write, posts:draft, posts:publish, posts:read, webhooks:read, webhooks:write\n/,
      );
      expect(JSON.parse(whoamiJson!)).toMatchObject({
        url,
        profile: 'default',
        credential: 'file',
        workspace: { id: tenant.workspaceId, role: 'owner' },
        role: 'owner',
        scopes: expect.arrayContaining(['posts:read']),
      });
      expect(status).toMatch(/^name: +Herald\n/);
      expect(JSON.parse(statusJson!)).toEqual(await api('/status').then((s) => ({ ...s, time: expect.any(String) })));
      expect(workspaces).toMatch(new RegExp(`^ID +NAME +ROLE +CURRENT\n${tenant.workspaceId} .+ owner `));
      expect(JSON.parse(workspacesJson!)).toEqual(await api('/workspaces'));
      expect(channels.split('\n')[0]).toMatch(/^ID +NAME +PLATFORM +HANDLE +GROUP +STATE$/);
      expect(channels).toContain('News Desk');
      expect(channels).toMatch(/Hook +webhook/);
      expect(JSON.parse(channelsJson!)).toEqual(await api('/integrations'));
      expect(grouped).toContain('News Desk');
      expect(grouped).not.toContain('Hook');
      expect(JSON.parse(groupedJson!)).toEqual([expect.objectContaining({ id: news.id })]);
      expect(settings).toMatch(/text limit: +\d+ /);
      expect(settings).toMatch(/tools: +ping/);
      expect(JSON.parse(settingsJson!)).toEqual(await api(`/integration-settings/${news.id}`));
      expect(groups).toMatch(new RegExp(`${group.id} +Clients`));
      expect(JSON.parse(groupsJson!)).toEqual([{ id: group.id, name: 'Clients' }]);
      expect(notes).toMatch(/limit_warning +- +You have used 90%/);
      expect(JSON.parse(notesJson!)).toEqual(await api('/notifications'));
    },
    IN_PROCESS_MS,
  );

  it(
    "runs a channel tool, and shows the API's sentence with exit code 3 when it refuses",
    async () => {
      // The refusal from the real process: its sentence on standard error and its exit code.
      const [ping, unknown] = await Promise.all([
        cli(['channels', 'trigger', news.id, 'ping', '--data', '{"message":"hi"}', '--json']),
        spawned(['channels', 'trigger', news.id, 'nope']),
      ]);
      expect(ping.code, ping.stderr).toBe(0);
      expect(JSON.parse(ping.stdout)).toMatchObject({ ok: true, status: 200 });
      expect(unknown.code).toBe(3);
      expect(unknown.stderr).toMatch(/^herald: .*nope.* \(HTTP \d{3}\)\n$/);
    },
    processBudget(1),
  );

  it(
    'creates posts from an argument, a Markdown file and standard input, with comments, channels by name, and a local time',
    async () => {
      const md = path.join(home, 'launch.md');
      fs.writeFileSync(md, '# Launch\n\nWe are **live**.\n');
      const [scheduled, fromFile, fromStdin] = await Promise.all([
        cli([
          'posts',
          'create',
          'Hello\n\nsecond <para>',
          '-c',
          'Hook',
          '-c',
          '@acme-news',
          '--comment',
          'first reply',
          '--delay',
          '5',
          '--comment',
          'second reply',
          '--at',
          '2031-03-30 09:30',
          '--tz',
          'Europe/Paris',
          '--tag',
          'launch',
        ]),
        cli(['posts', 'create', '--file', md, '-c', news.id, '--json']),
        cli(['posts', 'create', '--format', 'html', '-c', news.id, '--at', '2031-04-01T10:00:00Z', '--json'], '<p>From <b>stdin</b></p>'),
      ]);
      expect(scheduled.code, scheduled.stderr).toBe(0);
      expect(scheduled.stdout).toMatch(/^Scheduled for 2031-03-30 09:30 Europe\/Paris on 2 channel\(s\)\.\nPOST +CHANNEL\n/);
      expect(scheduled.stdout).toContain(`Hook (${tenant.channelId})`);
      const id = /\n(\S+) +Hook/.exec(scheduled.stdout)![1]!;
      const post = (await api(`/posts/${id}`)) as {
        state: string;
        publishDate: string;
        tags: string[];
        value: Array<{ content: string; delay: number }>;
      };
      expect(post).toMatchObject({ state: 'QUEUE', publishDate: '2031-03-30T07:30:00.000Z', tags: ['launch'] });
      expect(post.value.map((v) => [v.content, v.delay])).toEqual([
        ['<p>Hello</p><p>second &lt;para&gt;</p>', 0],
        ['<p>first reply</p>', 5],
        ['<p>second reply</p>', 5],
      ]);

      expect(fromFile.code, fromFile.stderr).toBe(0);
      const [draft] = JSON.parse(fromFile.stdout) as Array<{ postId: string; integration: string }>;
      expect(draft!.integration).toBe(news.id);
      expect(await api(`/posts/${draft!.postId}`)).toMatchObject({
        state: 'DRAFT',
        value: [
          expect.objectContaining({ content: expect.stringMatching(/^<h1>Launch<\/h1>\s*<p>We are <strong>live<\/strong>\.<\/p>$/) }),
        ],
      });

      expect(fromStdin.code, fromStdin.stderr).toBe(0);
      const [queued] = JSON.parse(fromStdin.stdout) as Array<{ postId: string }>;
      expect(await api(`/posts/${queued!.postId}`)).toMatchObject({
        state: 'QUEUE',
        publishDate: '2031-04-01T10:00:00.000Z',
        value: [expect.objectContaining({ content: '<p>From <b>stdin</b></p>' })],
      });
    },
    IN_PROCESS_MS,
  );

  it(
    'reads, moves, marks and deletes posts in words and in JSON',
    async () => {
      const [created] = await json<Array<{ postId: string }>>([
        'posts',
        'create',
        'To be moved',
        '-c',
        news.id,
        '--at',
        '2031-05-01T08:00:00Z',
      ]);
      const id = created!.postId;
      const window = ['--from', '2031-05-01', '--to', '2031-05-02'];
      const reads = await Promise.all([
        cli(['posts', 'list', ...window]),
        cli(['posts', 'list', ...window, '--json']),
        cli(['posts', 'get', id]),
        cli(['posts', 'get', id, '--json']),
        cli(['posts', 'missing', id]),
        cli(['posts', 'missing', id, '--json']),
      ]);
      for (const run of reads) expect(run.code, run.stderr).toBe(0);
      const [list, listJson, get, getJson, missing, missingJson] = reads.map((r) => r.stdout);
      expect(list).toMatch(
        new RegExp(
          `^ID +STATE +WHEN +PLATFORM +CHANNEL +GROUP +CONTENT\n${id} +QUEUE +2031-05-01 08:00 UTC +webhook +News Desk .+ To be moved\n$`,
        ),
      );
      expect(JSON.parse(listJson!)).toEqual(await api('/posts?startDate=2031-05-01T00:00:00.000Z&endDate=2031-05-02T00:00:00.000Z'));
      expect(get).toMatch(new RegExp(`^id: +${id}\n`));
      expect(get).toContain('post: [PENDING] To be moved');
      expect(JSON.parse(getJson!)).toEqual(await api(`/posts/${id}`));
      expect(missing).toBe(`Post ${id} is ready to publish.\n`);
      expect(JSON.parse(missingJson!)).toEqual({ postId: id, ready: true, missing: [] });

      const toDraft = await cli(['posts', 'status', id, 'draft']);
      expect(toDraft.stdout).toMatch(new RegExp(`^Post ${id} is now DRAFT\\.`));
      expect(await json(['posts', 'status', id, 'schedule'])).toMatchObject({ id, state: 'QUEUE' });
      const release = await cli(['posts', 'release-id', id, 'remote-1', '--release-url', 'https://receiver.example/p/1']);
      expect(release.stdout).toBe(`Post ${id} is recorded as remote-1 (https://receiver.example/p/1).\n`);
      expect(await json(['posts', 'release-id', id, 'remote-2'])).toMatchObject({ id, releaseId: 'remote-2' });

      const [a] = await json<Array<{ postId: string }>>(['posts', 'create', 'Group of two', '-c', news.id, '-c', tenant.channelId]);
      const groupId = ((await api(`/posts/${a!.postId}`)) as { group: string }).group;
      const [deleted, deletedGroup] = await Promise.all([
        cli(['posts', 'delete', id]),
        json<{ deleted: number }>(['posts', 'delete-group', groupId]),
      ]);
      expect(deleted.stdout).toBe(`Deleted 1 post(s): ${id}.\n`);
      expect(deletedGroup.deleted).toBe(2);
      const again = await cli(['posts', 'delete', id, '--json']);
      expect(again.code).toBe(3);
      expect(JSON.parse(again.stderr)).toMatchObject({ status: 404, error: { msg: expect.any(String) } });
    },
    IN_PROCESS_MS,
  );

  it(
    "edits a post in place: only what is given changes, in words and in JSON; refusals speak the command's language",
    async () => {
      const [created] = await json<Array<{ postId: string; group: string }>>([
        'posts',
        'create',
        'Before',
        '-c',
        news.id,
        '--comment',
        'A reply',
        '--delay',
        '4',
        '--tag',
        'old',
        '--at',
        '2031-07-01T08:00:00Z',
      ]);
      const id = created!.postId;
      expect(created!.group).toBe(((await api(`/posts/${id}`)) as { group: string }).group);

      const edited = await cli([
        'posts',
        'edit',
        id,
        'After **all**',
        '--format',
        'markdown',
        '--at',
        '2031-07-02 10:00',
        '--tz',
        'Europe/Paris',
        '--tag',
        'new',
        '--setting',
        'title=Launch',
      ]);
      expect(edited.code, edited.stderr).toBe(0);
      expect(edited.stdout).toMatch(new RegExp(`^Post ${id} is updated, scheduled for 2031-07-02 10:00 Europe/Paris\\.\nid: +${id}\n`));
      expect(await api(`/posts/${id}`)).toMatchObject({
        state: 'QUEUE',
        publishDate: '2031-07-02T08:00:00.000Z',
        tags: ['new'],
        settings: { title: 'Launch' },
        value: [{ content: '<p>After <strong>all</strong></p>' }, { content: '<p>A reply</p>', delay: 4 }],
      });

      const drafted = await json<{ state: string; value: unknown[] }>(['posts', 'edit', id, '--draft', '--no-comments', '--no-tags']);
      expect(drafted).toEqual(await api(`/posts/${id}`));
      expect(drafted).toMatchObject({ state: 'DRAFT', tags: [], value: [{ content: '<p>After <strong>all</strong></p>' }] });
      expect(drafted.value).toHaveLength(1);

      const [nothing, both, past, notInLibrary, missing] = await Promise.all([
        cli(['posts', 'edit', id]),
        cli(['posts', 'edit', id, '--now', '--draft']),
        cli(['posts', 'edit', id, '--schedule', '--at', '2020-01-01T00:00:00Z']),
        cli(['posts', 'edit', id, '--image', 'http://herald.test/media/nope.png']),
        cli(['posts', 'edit', 'no-such-post', 'x']),
      ]);
      expect(nothing.code).toBe(2);
      expect(nothing.stderr).toMatch(/^herald: Nothing to change: give new content/);
      expect(both.code).toBe(2);
      expect(past.code).toBe(3);
      expect(past.stderr).toMatch(/is in the past; schedule for a later time or use --now\./);
      expect(notInLibrary.code).toBe(3);
      expect(notInLibrary.stderr).toContain("--image http://herald.test/media/nope.png: not a file of this workspace's media library");
      expect(missing.code).toBe(3);
      expect(missing.stderr).toBe('herald: No post no-such-post in this workspace. (HTTP 404)\n');

      await t.runtime.db.updateTable('posts').set({ state: 'PUBLISHED' }).where('id', '=', id).execute();
      const late = await cli(['posts', 'edit', id, 'Too late']);
      expect(late.code).toBe(3);
      expect(late.stderr).toMatch(/cannot be edited: it is already published/);
    },
    IN_PROCESS_MS,
  );

  it(
    'a create whose answers are lost is retried with the same Idempotency-Key and makes one post; rerunning with the printed key makes none',
    async () => {
      // Forwards everything, but loses the server's answer to every POST /posts (the server did the work).
      let creates = 0;
      const proxy = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const upstream = http.request(`${url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
            if (req.method === 'POST' && req.url === '/public/v1/posts') {
              creates += 1;
              answer.resume();
              answer.on('end', () => req.socket.destroy());
              return;
            }
            res.writeHead(answer.statusCode!, answer.headers);
            answer.pipe(res);
          });
          upstream.end(Buffer.concat(chunks));
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      try {
        const args = ['posts', 'create', 'Exactly once', '-c', news.id, '--at', '2031-06-01T12:00:00Z'];
        const lost = await cli(args, '', { HERALD_URL: proxyUrl, HERALD_API_KEY: tenant.key });
        expect(lost.code).toBe(4);
        expect(creates).toBe(3);
        expect(lost.stderr).toContain('Trying again in');
        const key = /run the same command with --idempotency-key (\S+)/.exec(lost.stderr)?.[1];
        expect(key, lost.stderr).toBeTruthy();

        const retried = await cli([...args, '--idempotency-key', key!, '--json']);
        expect(retried.code, retried.stderr).toBe(0);
        const listed = (await api('/posts?startDate=2031-06-01T00:00:00.000Z&endDate=2031-06-02T00:00:00.000Z')) as {
          posts: Array<{ id: string }>;
        };
        expect(listed.posts).toHaveLength(1);
        expect(JSON.parse(retried.stdout)).toEqual([{ postId: listed.posts[0]!.id, integration: news.id, group: expect.any(String) }]);
      } finally {
        await new Promise((resolve) => proxy.close(resolve));
      }
    },
    IN_PROCESS_MS,
  );

  it(
    'uploads several files with a progress bar on a terminal only, and manages the library and upload links',
    async () => {
      const files = [1, 2, 3].map((n) => {
        const file = path.join(home, `pic-${n}.png`);
        fs.writeFileSync(file, png(8 + n, 8, [n * 40, 10, 10], 2000));
        return file;
      });
      const [plain, piped] = await Promise.all([cli(['upload', files[0]!, files[1]!]), cli(['upload', files[2]!, '--json'])]);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stderr).toBe('');
      expect(plain.stdout).toMatch(/^FILE +ID +PATH\n/);
      expect(plain.stdout.trim().split('\n')).toHaveLength(3);
      const [uploaded] = JSON.parse(piped.stdout) as Array<{ id: string; path: string }>;
      expect(uploaded!.path).toMatch(/^http:\/\/herald\.test\//);

      const library = await Promise.all([
        cli(['media', 'list']),
        cli(['media', 'list', '--json']),
        cli(['upload-link', 'create']),
        cli(['upload-link', 'create', '--json']),
      ]);
      for (const run of library) expect(run.code, run.stderr).toBe(0);
      expect(library[0]!.stdout).toContain('pic-1.png');
      expect(library[0]!.stdout.split('\n')[0]).toMatch(/^ID +TYPE +SIZE +ADDED +NAME +PATH$/);
      expect(JSON.parse(library[1]!.stdout)).toEqual(await api('/media'));
      expect(library[2]!.stdout).toMatch(/^Upload link \S+, open until .+:\nhttp:\/\/herald\.test\/u\/\S+\n$/);
      const link = JSON.parse(library[3]!.stdout) as { id: string };
      const [contents, contentsJson, removed] = await Promise.all([
        cli(['upload-link', 'get', link.id]),
        cli(['upload-link', 'get', link.id, '--json']),
        cli(['media', 'delete', uploaded!.id]),
      ]);
      expect(contents.stdout).toBe(`No files yet through link ${link.id}.\n`);
      expect(JSON.parse(contentsJson.stdout)).toEqual({ id: link.id, status: 'empty', count: 0, files: [] });
      expect(removed.stdout).toBe(`Deleted ${uploaded!.id}.\n`);

      const refused = await cli(['upload-url', 'http://127.0.0.1:9/x.png']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/^herald: .+ \(HTTP 400\)\n$/);
    },
    IN_PROCESS_MS,
  );

  it.skipIf(!fs.existsSync('/usr/bin/script'))(
    'draws the progress bar when standard error is a terminal',
    async () => {
      const files = [4, 5].map((n) => {
        const file = path.join(home, `tty-${n}.png`);
        fs.writeFileSync(file, png(8, 8 + n, [10, n * 40, 10], 3000));
        return file;
      });
      const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
      const { stdout } = await promisify(execFile)(
        'script',
        ['-qec', [process.execPath, HERALD_BIN, 'upload', ...files].map(quote).join(' '), '/dev/null'],
        {
          env: { ...process.env, ...env, HERALD_URL: url, HERALD_API_KEY: tenant.key },
          timeout: PROCESS_BUDGET_MS,
        },
      );
      for (const file of files) expect(stdout).toMatch(new RegExp(`\\r${file.replace(/[.]/g, '\\.')} \\[#{24}\\] 100% \\d+ KB/\\d+ KB`));
      expect(stdout).toMatch(/FILE +ID +PATH/);
    },
    processBudget(1),
  );

  it(
    'tells bad input apart: unknown channel, bad date, missing file, bad option (2); no login (2)',
    async () => {
      const runs = await Promise.all([
        cli(['posts', 'create', 'x', '-c', 'no-such-channel']),
        cli(['posts', 'create', 'x', '-c', news.id, '--at', '2031-02-30 10:00']),
        cli(['posts', 'create', 'x', '-c', news.id, '--at', 'tomorrow-ish']),
        cli(['posts', 'create', '-c', news.id, '--file', path.join(home, 'missing.txt')]),
        cli(['upload', path.join(home, 'pic-1.png'), path.join(home, 'nope.png')]),
        // A usage error from the real process (commander's, before any request).
        spawned(['posts', 'list', '--limit', 'lots']),
        cli(['channels', 'list', '--profile', 'nobody']),
      ]);
      const [channel, impossible, unreadableDate, missingFile, missingUpload, badOption, noLogin] = runs;
      for (const run of runs) expect(run.code, run.stderr).toBe(2);
      expect(channel!.stderr).toBe(
        'herald: Unknown channel "no-such-channel": no channel has this ID, name or handle. Run `herald channels list` to see them.\n',
      );
      expect(impossible!.stderr).toMatch(/^herald: Bad date "2031-02-30 10:00": use ISO 8601/);
      expect(unreadableDate!.stderr).toMatch(/^herald: Bad date "tomorrow-ish"/);
      expect(missingFile!.stderr).toBe(`herald: No such file: ${path.join(home, 'missing.txt')}\n`);
      expect(missingUpload!.stderr).toBe(`herald: No such file: ${path.join(home, 'nope.png')}\n`);
      expect(badOption!.stderr).toContain('--limit must be a whole number from 1 to 1000');
      expect(noLogin!.stderr).toContain('Not logged in for profile "nobody"');
    },
    processBudget(1),
  );

  it(
    'has help with examples, a version, completion, and forgets the login on logout',
    async () => {
      // The version and the completion script (a chunk of the build loaded on first use) from the real process.
      const [help, version, completion, wrongKey] = await Promise.all([
        cli(['posts', 'create', '--help']),
        spawned(['--version']),
        spawned(['completion', 'bash']),
        cli(['whoami'], '', { HERALD_URL: url, HERALD_API_KEY: 'svc_wrong' }),
      ]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Examples:\n  $ herald posts create');
      expect(help.stdout).toContain('--idempotency-key');
      expect(version.stdout.trim()).toBe(JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
      expect(completion.stdout).toContain('complete -o default -F _herald herald');
      expect(completion.stdout).toMatch(/"posts"\) words="create edit list get status missing release-id delete delete-group/);
      // HERALD_API_KEY overrides the stored key.
      expect(wrongKey.code).toBe(3);

      const logout = await cli(['logout']);
      expect(logout.stdout).toMatch(/^Logged out of http:\/\/127\.0\.0\.1:\d+ \(profile default\)/);
      expect(JSON.parse(fs.readFileSync(path.join(env.XDG_CONFIG_HOME!, 'herald', 'credentials.json'), 'utf8'))).toEqual({ profiles: {} });
    },
    processBudget(2),
  );
});

describe('the herald command under a rate limit', () => {
  it(
    'waits for Retry-After when the API answers 429, says so, and carries on',
    async () => {
      const limited = await createTestApp({ env: { RATE_LIMIT_ROUTES: '{"POST /public/v1/upload": 1}', RATE_LIMIT_WINDOW_SECONDS: '4' } });
      await limited.app.listen({ port: 0, host: '127.0.0.1' });
      const owner = await createTenant(limited);
      const files = [6, 7].map((n) => {
        const file = path.join(home, `limited-${n}.png`);
        fs.writeFileSync(file, png(8, 8, [n * 30, 10, 10]));
        return file;
      });
      const result = await cli(['upload', ...files, '--json'], '', {
        HERALD_URL: `http://127.0.0.1:${(limited.app.server.address() as AddressInfo).port}`,
        HERALD_API_KEY: owner.key,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^herald: Rate limited by the server: waiting \d s \(Retry-After\) before trying again\.\n$/);
      expect(JSON.parse(result.stdout)).toHaveLength(2);
    },
    IN_PROCESS_MS,
  );
});

describe('the herald command keeps each login for its own instance', () => {
  type Seen = { method: string; url: string; authorization: string | undefined; body: string };
  /** A stand-in for another instance, on loopback: it records what it is sent and answers as the API or the token endpoint would. */
  async function recordingInstance(options: { redirectTo?: string } = {}) {
    const seen: Seen[] = [];
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization, body });
        if (options.redirectTo && request.url !== '/public/v1/workspaces') {
          response.writeHead(307, { location: `${options.redirectTo}${request.url}` }).end();
          return;
        }
        response.setHeader('content-type', 'application/json');
        if (request.url === '/oauth/token')
          response.end(
            JSON.stringify({ access_token: 'svco_refreshed', refresh_token: 'svcr_refreshed', expires_in: 3600, token_type: 'Bearer' }),
          );
        else response.end('[]');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      seen,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  function configIn(name: string) {
    const own = { XDG_CONFIG_HOME: path.join(home, name), TZ: 'UTC' };
    return {
      env: own,
      file: path.join(own.XDG_CONFIG_HOME, 'herald', 'credentials.json'),
      run: (args: string[], input = '', extra: Record<string, string> = {}) => heraldInProcess(args, { ...own, ...extra }, input),
    };
  }

  it(
    "never sends a stored key to another URL: every command asks for that instance's own login or an explicit key",
    async () => {
      const other = await recordingInstance();
      const { run } = configIn('per-instance-leak');
      try {
        expect((await run(['login', '--key', '--url', url], `${tenant.key}\n`)).code).toBe(0);
        const pic = path.join(home, 'per-instance.png');
        fs.writeFileSync(pic, png(4, 4, [1, 2, 3]));
        const commands = [
          ['channels', 'list'],
          ['whoami'],
          ['workspaces'],
          ['status'],
          ['posts', 'list'],
          ['posts', 'create', 'x', '-c', 'ch_1'],
          ['upload', pic],
          ['upload-url', 'https://example.com/a.png'],
          ['upload-link', 'create'],
          ['media', 'list'],
          ['notifications'],
          ['groups', 'list'],
        ];
        for (const command of commands) {
          const refused = await run(command, '', { HERALD_URL: other.url });
          expect(refused.code, `${command.join(' ')}: ${refused.stderr}`).toBe(2);
          expect(refused.stderr).toContain(`Not logged in to ${other.url}`);
          expect(refused.stderr).toContain(`herald login --url ${other.url}`);
        }
        expect(other.seen).toEqual([]);
        // The stored login still works for its own instance, and an explicit key goes where it is told.
        expect((await run(['workspaces', '--json'])).code).toBe(0);
        expect((await run(['workspaces', '--json'], '', { HERALD_URL: `${url}/public/v1/` })).code).toBe(0);
        expect((await run(['workspaces'], '', { HERALD_URL: other.url, HERALD_API_KEY: 'svc_given_for_other' })).code).toBe(0);
        expect(other.seen.map((r) => r.authorization)).toEqual(['svc_given_for_other']);
      } finally {
        await other.close();
      }
    },
    IN_PROCESS_MS,
  );

  it(
    'an instance that redirects elsewhere does not carry the key there (the redirect drops it)',
    async () => {
      const other = await recordingInstance();
      const redirecting = await recordingInstance({ redirectTo: other.url });
      const { run } = configIn('per-instance-redirect');
      try {
        expect((await run(['login', '--key', '--url', redirecting.url], 'svc_stored_for_redirecting\n')).code).toBe(0);
        await run(['channels', 'list']);
        expect(redirecting.seen.map((r) => r.authorization)).toEqual(['svc_stored_for_redirecting', 'svc_stored_for_redirecting']);
        expect(other.seen.map((r) => [r.url, r.authorization])).toEqual([['/public/v1/integrations', undefined]]);
      } finally {
        await other.close();
        await redirecting.close();
      }
    },
    IN_PROCESS_MS,
  );

  it(
    'keeps a login per instance in one profile: the last one is used by default, HERALD_URL picks another, logout --url forgets one',
    async () => {
      const second = await createTestApp();
      await second.app.listen({ port: 0, host: '127.0.0.1' });
      const secondUrl = `http://127.0.0.1:${(second.app.server.address() as AddressInfo).port}`;
      const secondTenant = await createTenant(second);
      const { run, file } = configIn('per-instance-two');
      const workspacesAt = async (extra: Record<string, string> = {}) => {
        const result = await run(['workspaces', '--json'], '', extra);
        expect(result.code, result.stderr).toBe(0);
        return (JSON.parse(result.stdout) as Array<{ id: string }>).map((w) => w.id);
      };
      try {
        expect((await run(['login', '--key', '--url', url], `${tenant.key}\n`)).code).toBe(0);
        expect((await run(['login', '--key', '--url', secondUrl], `${secondTenant.key}\n`)).code).toBe(0);
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
          profiles: {
            default: { url: secondUrl, kind: 'apiKey', key: secondTenant.key, others: { [url]: { url, kind: 'apiKey', key: tenant.key } } },
          },
        });
        expect(await workspacesAt()).toEqual([secondTenant.workspaceId]);
        expect(await workspacesAt({ HERALD_URL: url })).toEqual([tenant.workspaceId]);
        expect(await workspacesAt({ HERALD_URL: secondUrl })).toEqual([secondTenant.workspaceId]);

        const logout = await run(['logout', '--url', url]);
        expect(logout.stdout).toContain(`Logged out of ${url} (profile default)`);
        expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
          profiles: { default: { url: secondUrl, kind: 'apiKey', key: secondTenant.key } },
        });
        expect((await run(['workspaces'], '', { HERALD_URL: url })).code).toBe(2);
        expect((await run(['logout', '--url', url])).stdout).toContain(`Profile default was not logged in to ${url}.`);
        expect((await run(['logout'])).code).toBe(0);
        expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ profiles: {} });
      } finally {
        await second.close();
      }
    },
    IN_PROCESS_MS,
  );

  it(
    "reads a file of one login per profile as that login's instance's, refreshes an OAuth token only at its own instance, and keeps the file 0600",
    async () => {
      const home1 = await recordingInstance();
      const elsewhere = await recordingInstance();
      const { run, file } = configIn('per-instance-migrated');
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        // As an earlier version wrote it: one credential per profile, with its URL.
        const due = new Date(Date.now() - 1000).toISOString();
        fs.writeFileSync(
          file,
          JSON.stringify({
            profiles: {
              default: {
                url: `${home1.url}/`,
                kind: 'oauth',
                key: 'svco_stored',
                refreshToken: 'svcr_stored',
                expiresAt: due,
                workspace: 'ws_home',
              },
            },
          }),
          { mode: 0o600 },
        );

        const refused = await run(['channels', 'list'], '', { HERALD_URL: elsewhere.url });
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(`the stored login is for ${home1.url}`);
        expect(elsewhere.seen).toEqual([]);
        // Nothing was refreshed for a command that was not going to use that login.
        expect(home1.seen).toEqual([]);

        const listed = await run(['channels', 'list', '--json']);
        expect(listed.code, listed.stderr).toBe(0);
        expect(home1.seen.map((r) => [r.method, r.url.split('?')[0], r.authorization])).toEqual([
          ['POST', '/oauth/token', undefined],
          ['GET', '/public/v1/integrations', 'Bearer svco_refreshed'],
        ]);
        expect(new URLSearchParams(home1.seen[0]!.body).get('refresh_token')).toBe('svcr_stored');
        expect(elsewhere.seen).toEqual([]);
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
          profiles: {
            default: {
              url: home1.url,
              kind: 'oauth',
              key: 'svco_refreshed',
              refreshToken: 'svcr_refreshed',
              expiresAt: expect.any(String),
              workspace: 'ws_home',
            },
          },
        });
      } finally {
        await home1.close();
        await elsewhere.close();
      }
    },
    IN_PROCESS_MS,
  );
});

describe('herald posts create --queue', () => {
  it("queues at the channel's next free slot and says when; refuses --queue with --at", async () => {
    const login = await cli(['login', '--key', '--url', url], `${tenant.key}\n`);
    expect(login.code, login.stderr).toBe(0);
    const { date } = (await api(`/find-slot/${tenant.channelId}`)) as { date: string };
    const queued = await cli(['posts', 'create', 'Queued', '-c', tenant.channelId, '--queue', '--tz', 'UTC']);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/^Queued on 1 channel\(s\): .+\.\n/);
    const [created] = await json<Array<{ postId: string }>>(['posts', 'create', 'Queued too', '-c', tenant.channelId, '--queue']);
    const first = ((await api(`/posts?startDate=${date}&endDate=${date}`)) as { posts?: Array<{ publishDate: string }> }).posts;
    expect(first?.map((p) => p.publishDate)).toContain(date);
    const second = (await api(`/posts/${created!.postId}`)) as { state: string; publishDate: string };
    expect(second.state).toBe('QUEUE');
    expect(Date.parse(second.publishDate)).toBeGreaterThan(Date.parse(date));
    const both = await cli(['posts', 'create', 'x', '-c', tenant.channelId, '--queue', '--at', '2031-01-01T00:00:00Z']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--queue');
  });
});

describe('herald posts create --repeat', () => {
  it('creates a recurring series from --at in --tz, weekly on --days, ending after --count; refuses --repeat without --at', async () => {
    const login = await cli(['login', '--key', '--url', url], `${tenant.key}\n`);
    expect(login.code, login.stderr).toBe(0);
    const args = ['posts', 'create', 'Weekly tip', '-c', tenant.channelId, '--at', '2031-01-06 09:00', '--tz', 'Europe/Berlin'];
    const made = await cli([...args, '--repeat', 'weekly', '--days', 'mon,thu', '--count', '3']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(
      /^Series \S+ \(FREQ=WEEKLY;BYDAY=MO,TH;COUNT=3, Europe\/Berlin\) on 1 channel\(s\); first occurrence 2031-01-06 09:00/,
    );
    const id = /^Series (\S+)/.exec(made.stdout)![1]!;
    expect(await api(`/series/${id}`)).toMatchObject({
      repeat: { frequency: 'weekly', days: ['monday', 'thursday'], start: '2031-01-06T09:00', timeZone: 'Europe/Berlin', count: 3 },
      nextOccurrence: '2031-01-06T08:00:00.000Z',
    });
    const rrule = await json<{ rule: string }>([...args, '--repeat', 'FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1']);
    expect(rrule.rule).toBe('FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1');
    const bare = await cli(['posts', 'create', 'x', '-c', tenant.channelId, '--repeat', 'daily']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--at');
  });
});

describe('herald import', () => {
  it('checks a CSV with --dry-run and shows a per-row error table, then imports it', async () => {
    const login = await cli(['login', '--key', '--url', url], `${tenant.key}\n`);
    expect(login.code, login.stderr).toBe(0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-import-'));
    const file = path.join(dir, 'posts.csv');
    fs.writeFileSync(file, `channels,date,content\n${tenant.channelId},2031-01-06T09:00:00Z,First\nnope,2031-01-07T09:00:00Z,Second\n`);
    const dry = await cli(['import', file, '--dry-run']);
    // A refused row is a refusal: exit code 3, the table still printed.
    expect(dry.code, dry.stderr).toBe(3);
    expect(dry.stdout).toContain('Dry run: 1 problem(s) in 2 rows; nothing was created.');
    expect(dry.stdout).toMatch(/ROW\s+FIELD\s+PROBLEM\n2\s+channels\s+.*no channel nope/);
    const partial = await cli(['import', file, '--partial', '--json']);
    expect(partial.code).toBe(3);
    expect(JSON.parse(partial.stdout)).toMatchObject({ status: 'invalid', created: 1 });
    fs.writeFileSync(file, `channels,date,content\n${tenant.channelId},2031-01-07T09:00:00Z,First\n`);
    const done = await json<{ status: string; created: number }>(['import', file]);
    expect(done).toMatchObject({ status: 'done', created: 1 });
  });
});

describe('herald channels schedule', () => {
  it("shows a channel's schedule, sets its slots in a zone, and clears it back to the default", async () => {
    const login = await cli(['login', '--key', '--url', url], `${tenant.key}\n`);
    expect(login.code, login.stderr).toBe(0);
    const shown = await cli(['channels', 'schedule', tenant.channelId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/the built-in default \(UTC\)/);
    expect(shown.stdout).toMatch(/monday:\s+09:00 12:00 17:00/);
    const set = await json<{ source: string; timeZone: string; slots: unknown[] }>([
      'channels',
      'schedule',
      tenant.channelId,
      '--slot',
      'mon 9:00',
      '--slot',
      'thursday 17:30',
      '--tz',
      'Europe/Paris',
    ]);
    expect(set).toMatchObject({
      source: 'channel',
      timeZone: 'Europe/Paris',
      slots: [
        { day: 'monday', time: '09:00' },
        { day: 'thursday', time: '17:30' },
      ],
    });
    expect(await api(`/integrations/${tenant.channelId}/schedule`)).toMatchObject({ source: 'channel' });
    const bad = await cli(['channels', 'schedule', tenant.channelId, '--slot', 'someday 25:00']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--slot');
    expect(await json(['channels', 'schedule', tenant.channelId, '--clear'])).toMatchObject({ source: 'default' });
  });

  it("shows and sets the workspace's default schedule, which a channel without its own then uses", async () => {
    const login = await cli(['login', '--key', '--url', url], `${tenant.key}\n`);
    expect(login.code, login.stderr).toBe(0);
    const shown = await cli(['channels', 'default-schedule']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/the built-in default \(UTC\)/);
    const set = await json<{ source: string; timeZone: string; slots: unknown[] }>([
      'channels',
      'default-schedule',
      '--slot',
      'tue 08:15',
      '--tz',
      'Australia/Sydney',
    ]);
    expect(set).toMatchObject({ source: 'workspace', timeZone: 'Australia/Sydney', slots: [{ day: 'tuesday', time: '08:15' }] });
    expect(await api(`/integrations/${tenant.channelId}/schedule`)).toMatchObject({ source: 'workspace', timeZone: 'Australia/Sydney' });
    const bad = await cli(['channels', 'default-schedule', '--tz', 'UTC']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tz');
  });
});
