import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { TEST_SECRET_KEY, TEST_WEBHOOK_SECRET } from '../helpers/app.ts';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { processBudget, PROCESS_BUDGET_MS, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { ensureBuilt } from '../../scripts/build.mjs';
import { connectClient } from './helpers.ts';

const run = promisify(execFile);
/** The MCP Inspector's command-line client: a second client, written elsewhere, on the earlier revisions' handshake. */
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js');

let server: ServerProcess;
let runtime: Runtime;
let drop: () => Promise<void>;
let url: string;
let key: string;
let channelId: string;

// The real `herald serve` process (its compiled build, with the MCP code in a chunk loaded on first use).
beforeAll(async () => {
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  const env = {
    DATABASE_URL: fresh.url,
    DATA_DIR: fresh.dataDir,
    BASE_URL: 'http://herald.test',
    BOOTSTRAP: 'false',
    SECRET_KEY: TEST_SECRET_KEY,
  };
  server = await startServerProcess(env);
  url = `${server.baseUrl}/mcp-oauth`;
  runtime = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  const { services } = runtime;
  const workspace = await services.workspaces.create({ name: 'Inspected' });
  const user = await services.users.create({ email: 'inspector@example.test' });
  await services.workspaces.addMember(workspace.id, user.id, 'owner');
  key = (await services.apiKeys.create({ userId: user.id, kind: 'mcp' })).secret;
  channelId = (
    await services.channels.create(workspace.id, {
      provider: 'webhook',
      name: 'Site',
      config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
    })
  ).id;
}, processBudget(1));

afterAll(async () => {
  await server?.stop();
  await runtime?.close();
  await drop?.();
});

async function inspector(args: string[]): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, '--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args],
    {
      timeout: PROCESS_BUDGET_MS,
      // It finds its own package.json relative to the working directory: run it from its build folder.
      cwd: path.dirname(INSPECTOR),
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  return JSON.parse(stdout);
}

/** The files a compiled module loads at once: itself and its static imports, transitively (not `import()`). */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = fs.readFileSync(file, 'utf8');
  // Static imports and re-exports of other build files, minified or not (`import{a}from"./x.js"`, `import"./y.js"`).
  for (const match of code.matchAll(/(?:^|;)\s*(?:import|export)\s*(?:[\w*{][^;]*?from\s*)?["'](\.{1,2}\/[^"']+)["']/gm))
    staticClosure(path.resolve(path.dirname(file), match[1]!), seen);
  return seen;
}

describe('the MCP server of a real process', () => {
  it('is not loaded with the HTTP application: the SDK is reached only through a dynamic import', async () => {
    const entry = await ensureBuilt();
    const chunks = path.join(path.dirname(entry), 'chunks');
    // The build keeps no comments: the chunk holding src/app.ts is found by its source map.
    const sourcesOf = (file: string): string[] => (JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources;
    const appChunk = fs
      .readdirSync(chunks)
      .map((name) => path.join(chunks, name))
      .find((file) => file.endsWith('.js') && sourcesOf(file).some((source) => source.endsWith('src/app.ts')));
    expect(appChunk).toBeDefined();
    const loaded = [...staticClosure(appChunk!)];
    expect(loaded.length).toBeGreaterThan(1);
    expect(
      loaded.filter(
        (file) =>
          fs.readFileSync(file, 'utf8').includes('@modelcontextprotocol/') ||
          sourcesOf(file).some((source) => source.includes('@modelcontextprotocol/')),
      ),
    ).toEqual([]);
    expect(fs.readFileSync(appChunk!, 'utf8')).toMatch(/import\("\.\/mcp\.server-[^"]+\.js"\)/);
  });

  it(
    'the MCP Inspector CLI lists the tools and calls them',
    async () => {
      const listed = (await inspector(['--method', 'tools/list'])) as { tools: Array<{ name: string }> };
      expect(listed.tools).toHaveLength(21);
      expect(listed.tools.map((tool) => tool.name)).toContain('create_post');

      const channels = (await inspector(['--method', 'tools/call', '--tool-name', 'list_channels'])) as {
        structuredContent: { channels: Array<{ id: string }> };
      };
      expect(channels.structuredContent.channels.map((c) => c.id)).toEqual([channelId]);

      const missing = (await inspector(['--method', 'tools/call', '--tool-name', 'get_post', '--tool-arg', 'id=nope'])) as {
        isError: boolean;
        content: Array<{ text: string }>;
      };
      expect(missing.isError).toBe(true);
      expect(missing.content[0]!.text).toBe('No post nope in this workspace.');
    },
    // Each call is two processes: the launcher and the client it starts.
    processBudget(6),
  );

  it(
    'the inspector commands docs/mcp.md gives work as written, with no deprecation notice or missing module',
    async () => {
      const doc = fs.readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
      const block = /\*\*Checking by hand\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)![1]!;
      const commands = block
        .replace(/\\\n\s*/g, '')
        .trim()
        .split('\n');
      expect(commands).toHaveLength(2);
      const answers: unknown[] = [];
      for (const command of commands) {
        const line = command.replaceAll('https://herald.example.com', server.baseUrl).replaceAll('svc_mcp_…', key.replace(/^Bearer /, ''));
        // As a person runs it: a shell in the checkout.
        const { stdout, stderr } = await run('bash', ['-c', line], {
          cwd: fileURLToPath(new URL('../..', import.meta.url)),
          timeout: PROCESS_BUDGET_MS,
          env: { ...process.env, NO_COLOR: '1' },
        });
        expect(stderr).not.toMatch(/deprecated|Cannot find module/i);
        answers.push(JSON.parse(stdout));
      }
      const [listed, status] = answers as [{ tools: Array<{ name: string }> }, { isError?: boolean; structuredContent: { name: string } }];
      expect(listed.tools.map((tool) => tool.name)).toContain('get_status');
      expect(status.isError).toBeFalsy();
      expect(status.structuredContent.name).toBe('Herald');
    },
    processBudget(6),
  );

  it('the SDK client creates a post there, on the current revision', async () => {
    const client = await connectClient(new URL(url), key);
    const tools = await client.listTools();
    expect(tools.tools.find((tool) => tool.name === 'create_post')!.inputSchema.properties).toHaveProperty('posts');
    const created = (await client.callTool({
      name: 'create_post',
      arguments: {
        type: 'draft',
        date: '2027-02-01T10:00:00Z',
        posts: [{ integration: { id: channelId }, value: [{ content: 'From the built server' }] }],
      },
    })) as { isError?: boolean; structuredContent: { posts: Array<{ postId: string }> } };
    expect(created.isError).toBeFalsy();
    const access = await runtime.services.access.select(await runtime.services.apiKeys.authenticate(key, 'mcp'), undefined);
    const post = await runtime.services.posts.get(access, created.structuredContent.posts[0]!.postId);
    expect(post.content).toBe('<p>From the built server</p>');
    await client.close();
  }, 60_000);
});
