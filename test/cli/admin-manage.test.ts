import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WEBHOOK_SECRET } from '../helpers/app.ts';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { adminJson, herald, processBudget } from '../helpers/process.ts';

// `herald admin` list, delete and disable commands through the real process, as an operator runs them.
let env: Record<string, string>;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, BASE_URL: 'http://herald.test', BOOTSTRAP: 'false' };
}, processBudget(0, 60_000));

afterAll(async () => {
  await drop?.();
});

const admin = (...args: string[]) => herald(['admin', ...args], env);
const CONFIG = JSON.stringify({ url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET });

describe('herald admin: workspaces with an owner, keys only for members', () => {
  it('refuses a key for a user in no workspace with a sentence; workspace create --owner makes them its owner, and the key is then issued', async () => {
    const user = await adminJson<{ id: string; email: string }>(['user', 'create', '--email', 'ana@acme.test'], env);
    const refused = await admin('key', 'create', '--user', 'ana@acme.test');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`herald: User ${user.id} belongs to no workspace, so a key could do nothing; add them to one first (herald admin member add --workspace <id> --user ${user.id} --role <role>).\n`);

    const ws = await admin('workspace', 'create', '--name', 'Acme', '--owner', 'ana@acme.test');
    expect(ws.code, ws.stderr).toBe(0);
    expect(ws.stdout).toMatch(/^workspace \S+ created \("Acme"\), owned by ana@acme\.test\n$/);
    const members = await adminJson<unknown[]>(['member', 'list', '--workspace', ws.stdout.split(' ')[1]!], env);
    expect(members).toEqual([{ userId: user.id, email: 'ana@acme.test', name: null, role: 'owner' }]);
    const key = await adminJson<{ id: string; secret: string }>(['key', 'create', '--user', 'ana@acme.test'], env);
    expect(key.secret).toMatch(/^svc_/);
  }, processBudget(5));
});

describe('herald admin: channels of every platform', () => {
  it('creates Mastodon and Telegram channels from their configuration, and deletes with --force', async () => {
    const owner = await adminJson<{ id: string }>(['user', 'create', '--email', 'platforms@acme.test'], env);
    const ws = await adminJson<{ id: string }>(['workspace', 'create', '--name', 'Platforms', '--owner', owner.id], env);
    const mastodon = await adminJson<{ provider: string }>(
      ['channel', 'create', '--workspace', ws.id, '--provider', 'mastodon', '--name', 'Masto', '--config', JSON.stringify({ instance: 'mastodon.example', accessToken: 'tok_0123456789abcdef0123' })],
      env,
    );
    expect(mastodon.provider).toBe('mastodon');
    const telegram = await adminJson<{ id: string; provider: string }>(
      ['channel', 'create', '--workspace', ws.id, '--provider', 'telegram', '--name', 'TG', '--config', JSON.stringify({ botToken: '123456:AAH-abcdefghijklmnopqrstuvwx', chatId: '@heraldnews' })],
      env,
    );
    expect(telegram.provider).toBe('telegram');
    expect(await adminJson(['channel', 'delete', telegram.id, '--workspace', ws.id, '--force'], env)).toMatchObject({ id: telegram.id, deleted: true });
  }, processBudget(5));
});

describe('herald admin: list, disable and delete', () => {
  it('lists users, workspaces, keys and channels (JSON with --json, a line each otherwise), never a key\'s secret', async () => {
    const owner = await adminJson<{ id: string; email: string }>(['user', 'create', '--email', 'lists@acme.test', '--name', 'Lis'], env);
    const ws = await adminJson<{ id: string }>(['workspace', 'create', '--name', 'Listed', '--owner', owner.id], env);
    const channel = await adminJson<{ id: string }>(['channel', 'create', '--workspace', ws.id, '--provider', 'webhook', '--name', 'Hook', '--config', CONFIG], env);
    const key = await adminJson<{ id: string; secret: string }>(['key', 'create', '--user', owner.id, '--scopes', 'posts:read'], env);

    const users = await adminJson<Array<{ id: string; email: string }>>(['user', 'list'], env);
    expect(users).toContainEqual({ id: owner.id, email: 'lists@acme.test', name: 'Lis', createdAt: expect.any(String) });
    const workspaces = await adminJson<Array<{ id: string; name: string }>>(['workspace', 'list'], env);
    expect(workspaces).toContainEqual(expect.objectContaining({ id: ws.id, name: 'Listed' }));
    const keys = await admin('key', 'list', '--user', owner.email, '--json');
    expect(JSON.parse(keys.stdout)).toEqual([expect.objectContaining({ id: key.id, userId: owner.id, scopes: ['posts:read'], revokedAt: null })]);
    expect(keys.stdout).not.toContain(key.secret.slice(-20));
    expect(keys.stdout).not.toMatch(/hash/i);

    const text = await admin('channel', 'list', '--workspace', ws.id);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`${channel.id}  webhook  "Hook"\n`);
  }, processBudget(8));

  it('disables and enables a channel, refuses to delete a workspace that still has one, then deletes channel, user and workspace', async () => {
    const owner = await adminJson<{ id: string }>(['user', 'create', '--email', 'gone@acme.test'], env);
    const ws = await adminJson<{ id: string }>(['workspace', 'create', '--name', 'Doomed', '--owner', owner.id], env);
    const channel = await adminJson<{ id: string }>(['channel', 'create', '--workspace', ws.id, '--provider', 'webhook', '--name', 'Hook', '--config', CONFIG], env);

    // Reconnecting changes only what is given; a loopback URL is refused, naming the setting for local development.
    const loopback = await admin('channel', 'reconnect', channel.id, '--workspace', ws.id, '--config', '{"url":"http://127.0.0.1:8080/hook"}');
    expect(loopback.code).toBe(1);
    expect(loopback.stderr).toMatch(/^herald: The webhook configuration's url cannot be used: Refused to connect: 127\.0\.0\.1 is a loopback address\. .*OUTBOUND_ALLOW_LOOPBACK=true/);
    expect(await adminJson(['channel', 'disable', channel.id, '--workspace', ws.id], env)).toMatchObject({ disabled: true, disabledReason: 'disabled_by_operator' });
    expect(await adminJson(['channel', 'enable', channel.id, '--workspace', ws.id], env)).toMatchObject({ disabled: false, disabledReason: null });

    const notEmpty = await admin('workspace', 'delete', ws.id, '--json');
    expect(notEmpty.code).toBe(1);
    expect(JSON.parse(notEmpty.stderr)).toEqual({ error: { code: 'workspace_not_empty', message: expect.stringMatching(/still has 1 channel\(s\); delete them first/) } });
    const soleOwner = await admin('user', 'delete', 'gone@acme.test');
    expect(soleOwner.stderr).toMatch(/^herald: gone@acme\.test is the only owner of workspace/);

    // A deleted channel keeps its posts, and so the workspace, until it is purged.
    expect(await adminJson(['channel', 'delete', channel.id, '--workspace', ws.id], env)).toMatchObject({ id: channel.id, deleted: true, purged: false });
    expect((await admin('workspace', 'delete', ws.id)).code).toBe(1);
    expect(await adminJson(['channel', 'delete', channel.id, '--workspace', ws.id, '--purge'], env)).toMatchObject({ id: channel.id, deleted: true, purged: true });
    expect(await adminJson(['workspace', 'delete', ws.id], env)).toMatchObject({ id: ws.id, deleted: true });
    expect(await adminJson(['user', 'delete', 'gone@acme.test'], env)).toMatchObject({ id: owner.id, deleted: true });
    const users = await adminJson<Array<{ id: string }>>(['user', 'list'], env);
    expect(users.map((u) => u.id)).not.toContain(owner.id);
  }, processBudget(15));
});

describe('herald admin oauth rotate-keys', () => {
  it('rotates the keys of the deployment it is pointed at (making them if it had none)', async () => {
    const first = await adminJson<{ signingKeyId: string; signingKeys: number; cookieKeys: number }>(['oauth', 'rotate-keys'], env);
    expect(first).toMatchObject({ signingKeyId: expect.stringMatching(/^[0-9a-f]{16}$/), signingKeys: 1, cookieKeys: 1 });
    const second = await adminJson<{ signingKeyId: string; signingKeys: number; cookieKeys: number }>(['oauth', 'rotate-keys'], env);
    expect(second.signingKeyId).not.toBe(first.signingKeyId);
    expect(second).toMatchObject({ signingKeys: 2, cookieKeys: 2 });
  }, processBudget(2));
});
