import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestApp } from '../helpers/app.ts';
import { heraldInProcess } from '../helpers/process.ts';
import type { webhookTenant } from '../helpers/posts.ts';
import { userCommandServer } from '../helpers/user-command.ts';

let t: TestApp;
let url: string;
let owner: Awaited<ReturnType<typeof webhookTenant>>;
let contributor: Tenant;
let home: string;

beforeAll(async () => {
  ({ t, url, tenant: owner } = await userCommandServer());
  contributor = await createTenant(t, { role: 'contributor', workspaceId: owner.workspaceId });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-approvals-'));
});

afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const cli = (key: string, args: string[]) =>
  heraldInProcess(args, { XDG_CONFIG_HOME: path.join(home, 'config'), TZ: 'UTC', HERALD_URL: url, HERALD_API_KEY: key });

const future = () => new Date(Date.now() + 3 * 24 * 3600_000).toISOString();

describe('herald posts approvals', () => {
  it("the owner turns approval on; a contributor's scheduled post awaits it; the owner lists, rejects and approves", async () => {
    const refused = await cli(contributor.key, ['posts', 'approval-settings', '--require', 'contributor']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/posts:publish.*contributor/);
    const set = await cli(owner.key, ['posts', 'approval-settings', '--require', 'contributor']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Approval is needed for: contributor. Approvers: owner, admin, editor.');

    const created = await cli(contributor.key, ['posts', 'create', 'Needs a yes', '--channel', owner.channelId, '--at', future()]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Awaiting approval on 1 channel\(s\)/);
    const first = /^(\S+)\s+Hook/m.exec(created.stdout)![1]!;
    const second = JSON.parse(
      (await cli(contributor.key, ['posts', 'create', 'Another', '--channel', owner.channelId, '--at', future(), '--json'])).stdout,
    )[0].postId as string;

    const listed = await cli(owner.key, ['posts', 'approvals']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(first);
    expect(listed.stdout).toContain(second);
    expect(listed.stdout).toContain('Needs a yes');

    const noComment = await cli(owner.key, ['posts', 'reject', second]);
    expect(noComment.code).not.toBe(0);
    expect(noComment.stderr).toMatch(/--comment/);
    const rejected = await cli(owner.key, ['posts', 'reject', second, '--comment', 'Not this week']);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toContain(`Post ${second} is rejected and back to DRAFT.`);
    const shown = await cli(contributor.key, ['posts', 'get', second]);
    expect(shown.stdout).toMatch(/approval:\s+rejected by .*: Not this week/);

    const byContributor = await cli(contributor.key, ['posts', 'approve', first]);
    expect(byContributor.code).not.toBe(0);
    expect(byContributor.stderr).toMatch(/posts:publish/);
    const approved = await cli(owner.key, ['posts', 'approve', first, '--comment', 'Fine']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^Post ${first} is approved: scheduled for `));
    expect((await cli(owner.key, ['posts', 'approvals'])).stdout).toContain('No post awaits approval.');
    expect((await cli(owner.key, ['posts', 'approval-settings', '--off'])).stdout).toContain('Nobody needs approval');
  });
});
