import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type Tenant, type TestApp } from '../helpers/app.ts';
import { processBudget, PROCESS_BUDGET_MS } from '../helpers/process.ts';
import { mcpUrl } from './helpers.ts';

const run = promisify(execFile);
/** The MCP Inspector's command-line client: a second client, written elsewhere, over the 2025 revisions' handshake. */
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js');

let t: TestApp;
let tenant: Tenant;
let url: URL;
let channelId: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t, { mcp: true });
  channelId = (await t.services.channels.create(tenant.workspaceId, { provider: 'webhook', name: 'Site', config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET } })).id;
  url = await mcpUrl(t);
});

async function inspector(args: string[]): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, '--cli', url.href, '--transport', 'http', '--header', `Authorization: Bearer ${tenant.key}`, ...args],
    // It finds its own package.json relative to the working directory: run it from its build folder.
    { timeout: PROCESS_BUDGET_MS, cwd: path.dirname(INSPECTOR), env: { ...process.env, NO_COLOR: '1' } },
  );
  return JSON.parse(stdout);
}

describe('MCP server with the MCP Inspector CLI', () => {
  it(
    'lists the tools and calls them',
    async () => {
      const listed = (await inspector(['--method', 'tools/list'])) as { tools: Array<{ name: string; annotations?: Record<string, unknown> }> };
      expect(listed.tools.map((tool) => tool.name)).toContain('create_post');
      expect(listed.tools).toHaveLength(18);

      const channels = (await inspector(['--method', 'tools/call', '--tool-name', 'list_channels'])) as { structuredContent: { channels: Array<{ id: string }> } };
      expect(channels.structuredContent.channels.map((c) => c.id)).toEqual([channelId]);

      const missing = (await inspector(['--method', 'tools/call', '--tool-name', 'get_post', '--tool-arg', 'id=nope'])) as { isError: boolean; content: Array<{ text: string }> };
      expect(missing.isError).toBe(true);
      expect(missing.content[0]!.text).toBe('No post nope in this workspace.');
    },
    processBudget(6),
  );
});
