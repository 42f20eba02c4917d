import { describe, expect, it } from 'vitest';
import { TEST_WEBHOOK_SECRET } from '../helpers/app.ts';
import { herald, IN_PROCESS_MS, operatorCommands, processBudget } from '../helpers/process.ts';

// `herald admin` list, delete and disable commands as an operator runs them: most through the
// operator entry inside this process (the same program, output and exit codes), a few as real processes.
const { env: operatorEnv, admin, json } = operatorCommands();
const CONFIG = JSON.stringify({ url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET });

describe('herald admin: workspaces with an owner, keys only for members', () => {
  it(
    'refuses a key for a user in no workspace with a sentence; workspace create --owner makes them its owner, and the key is then issued',
    async () => {
      const user = await json<{ id: string; email: string }>(['user', 'create', '--email', 'ana@acme.test']);
      // The refusal and the creation from the real process, as an operator sees them.
      const refused = await herald(['admin', 'key', 'create', '--user', 'ana@acme.test'], operatorEnv());
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `herald: User ${user.id} belongs to no workspace, so a key could do nothing; add them to one first (herald admin member add --workspace <id> --user ${user.id} --role <role>).\n`,
      );

      const ws = await herald(['admin', 'workspace', 'create', '--name', 'Acme', '--owner', 'ana@acme.test'], operatorEnv());
      expect(ws.code, ws.stderr).toBe(0);
      expect(ws.stdout).toMatch(/^workspace \S+ created \("Acme"\), owned by ana@acme\.test\n$/);
      const members = await json<unknown[]>(['member', 'list', '--workspace', ws.stdout.split(' ')[1]!]);
      expect(members).toEqual([{ userId: user.id, email: 'ana@acme.test', name: null, role: 'owner' }]);
      const key = await json<{ id: string; secret: string }>(['key', 'create', '--user', 'ana@acme.test']);
      expect(key.secret).toMatch(/^svc_/);
    },
    processBudget(2),
  );
});

describe('herald admin user create', () => {
  it('refuses an address that sign-up refuses, naming it', async () => {
    for (const address of ['ops@localhost', 'ana..lee@acme.test']) {
      const refused = await admin('user', 'create', '--email', address);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`"${address}" is not an e-mail address`);
    }
    const users = await json<Array<{ email: string }>>(['user', 'list']);
    expect(users.map((u) => u.email)).not.toContain('ops@localhost');
  });
});

describe('herald admin: channels of every platform', () => {
  it(
    'creates Mastodon and Telegram channels from their configuration, and deletes with --force',
    async () => {
      const owner = await json<{ id: string }>(['user', 'create', '--email', 'platforms@acme.test']);
      const ws = await json<{ id: string }>(['workspace', 'create', '--name', 'Platforms', '--owner', owner.id]);
      const mastodon = await json<{ provider: string }>([
        'channel',
        'create',
        '--workspace',
        ws.id,
        '--provider',
        'mastodon',
        '--name',
        'Masto',
        '--config',
        JSON.stringify({ instance: 'mastodon.example', accessToken: 'tok_0123456789abcdef0123' }),
      ]);
      expect(mastodon.provider).toBe('mastodon');
      const telegram = await json<{ id: string; provider: string }>([
        'channel',
        'create',
        '--workspace',
        ws.id,
        '--provider',
        'telegram',
        '--name',
        'TG',
        '--config',
        JSON.stringify({ botToken: '123456:AAH-abcdefghijklmnopqrstuvwx', chatId: '@heraldnews' }),
      ]);
      expect(telegram.provider).toBe('telegram');
      expect(await json(['channel', 'delete', telegram.id, '--workspace', ws.id, '--force'])).toMatchObject({
        id: telegram.id,
        deleted: true,
      });
    },
    IN_PROCESS_MS,
  );
});

describe('herald admin: list, disable and delete', () => {
  it(
    "lists users, workspaces, keys and channels (JSON with --json, a line each otherwise), never a key's secret",
    async () => {
      const owner = await json<{ id: string; email: string }>(['user', 'create', '--email', 'lists@acme.test', '--name', 'Lis']);
      const ws = await json<{ id: string }>(['workspace', 'create', '--name', 'Listed', '--owner', owner.id]);
      const channel = await json<{ id: string }>([
        'channel',
        'create',
        '--workspace',
        ws.id,
        '--provider',
        'webhook',
        '--name',
        'Hook',
        '--config',
        CONFIG,
      ]);
      const key = await json<{ id: string; secret: string }>(['key', 'create', '--user', owner.id, '--scopes', 'posts:read']);

      const users = await json<Array<{ id: string; email: string }>>(['user', 'list']);
      expect(users).toContainEqual({ id: owner.id, email: 'lists@acme.test', name: 'Lis', createdAt: expect.any(String) });
      const workspaces = await json<Array<{ id: string; name: string }>>(['workspace', 'list']);
      expect(workspaces).toContainEqual(expect.objectContaining({ id: ws.id, name: 'Listed' }));
      const keys = await admin('key', 'list', '--user', owner.email, '--json');
      expect(JSON.parse(keys.stdout)).toEqual([
        expect.objectContaining({ id: key.id, userId: owner.id, scopes: ['posts:read'], revokedAt: null }),
      ]);
      expect(keys.stdout).not.toContain(key.secret.slice(-20));
      expect(keys.stdout).not.toMatch(/hash/i);

      const text = await admin('channel', 'list', '--workspace', ws.id);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toBe(`${channel.id}  webhook  "Hook"\n`);
    },
    IN_PROCESS_MS,
  );

  it(
    'disables and enables a channel, refuses to delete a workspace that still has one, then deletes channel, user and workspace',
    async () => {
      const owner = await json<{ id: string }>(['user', 'create', '--email', 'gone@acme.test']);
      const ws = await json<{ id: string }>(['workspace', 'create', '--name', 'Doomed', '--owner', owner.id]);
      const channel = await json<{ id: string }>([
        'channel',
        'create',
        '--workspace',
        ws.id,
        '--provider',
        'webhook',
        '--name',
        'Hook',
        '--config',
        CONFIG,
      ]);

      // Reconnecting changes only what is given; a loopback URL is refused, naming the setting for local development.
      const loopback = await admin(
        'channel',
        'reconnect',
        channel.id,
        '--workspace',
        ws.id,
        '--config',
        '{"url":"http://127.0.0.1:8080/hook"}',
      );
      expect(loopback.code).toBe(1);
      expect(loopback.stderr).toMatch(
        /^herald: The webhook configuration's url cannot be used: Refused to connect: 127\.0\.0\.1 is a loopback address\. .*OUTBOUND_ALLOW_LOOPBACK=true/,
      );
      expect(await json(['channel', 'disable', channel.id, '--workspace', ws.id])).toMatchObject({
        disabled: true,
        disabledReason: 'disabled_by_operator',
      });
      expect(await json(['channel', 'enable', channel.id, '--workspace', ws.id])).toMatchObject({ disabled: false, disabledReason: null });

      const notEmpty = await admin('workspace', 'delete', ws.id, '--json');
      expect(notEmpty.code).toBe(1);
      expect(JSON.parse(notEmpty.stderr)).toEqual({
        error: { code: 'workspace_not_empty', message: expect.stringMatching(/still has 1 channel\(s\); delete them first/) },
      });
      const soleOwner = await admin('user', 'delete', 'gone@acme.test');
      expect(soleOwner.stderr).toMatch(/^herald: gone@acme\.test is the only owner of workspace/);

      // A deleted channel keeps its posts, and so the workspace, until it is purged.
      expect(await json(['channel', 'delete', channel.id, '--workspace', ws.id])).toMatchObject({
        id: channel.id,
        deleted: true,
        purged: false,
      });
      expect((await admin('workspace', 'delete', ws.id)).code).toBe(1);
      expect(await json(['channel', 'delete', channel.id, '--workspace', ws.id, '--purge'])).toMatchObject({
        id: channel.id,
        deleted: true,
        purged: true,
      });
      expect(await json(['workspace', 'delete', ws.id])).toMatchObject({ id: ws.id, deleted: true });
      expect(await json(['user', 'delete', 'gone@acme.test'])).toMatchObject({ id: owner.id, deleted: true });
      const users = await json<Array<{ id: string }>>(['user', 'list']);
      expect(users.map((u) => u.id)).not.toContain(owner.id);
    },
    IN_PROCESS_MS,
  );
});

describe('herald admin oauth rotate-keys', () => {
  it(
    'rotates the keys of the deployment it is pointed at (making them if it had none)',
    async () => {
      const first = await json<{ signingKeyId: string; signingKeys: number; cookieKeys: number }>(['oauth', 'rotate-keys']);
      expect(first).toMatchObject({ signingKeyId: expect.stringMatching(/^[0-9a-f]{16}$/), signingKeys: 1, cookieKeys: 1 });
      const second = await json<{ signingKeyId: string; signingKeys: number; cookieKeys: number }>(['oauth', 'rotate-keys']);
      expect(second.signingKeyId).not.toBe(first.signingKeyId);
      expect(second).toMatchObject({ signingKeys: 2, cookieKeys: 2 });
    },
    IN_PROCESS_MS,
  );
});
