// The README's webhook receiver, taken from the README as it is and run as a newcomer would: a
// channel connected without a secret (Herald generates one and shows it once), the receiver
// started with that secret, then a post published through Herald arrives and is verified. A
// delivery signed with another secret is refused. So the example cannot rot.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/providers/webhook/webhook.signature.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, getPost } from '../helpers/posts.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The README's one ```js block that starts with `// receiver.mjs`. */
function receiverExample(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.startsWith('// receiver.mjs\n'));
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

/** The receiver as `node receiver.mjs` with `env`; its output lines as they come. */
function startReceiver(dir: string, env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['receiver.mjs'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let errors = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) {
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    lines,
    errors: () => errors,
    /** The first line (already printed or to come) that matches. */
    line: (pattern: RegExp) =>
      new Promise<string>((resolve, reject) => {
        const seen = lines.find((l) => pattern.test(l));
        if (seen !== undefined) return resolve(seen);
        waiters.push({ pattern, resolve });
        void exited.then((code) => reject(new Error(`the receiver exited (${code}) before printing ${pattern}: ${errors}`)));
      }),
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

let t: TestApp;
let dir: string;
const running: Array<ReturnType<typeof startReceiver>> = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-receiver-'));
  // The example imports `standardwebhooks` as an installed package.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(dir, 'receiver.mjs'), receiverExample());
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await Promise.all(running.map((r) => r.stop()));
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the README's webhook receiver", () => {
  it('verifies a post published through Herald with the secret Herald generated, and refuses another signature', async () => {
    // Started before the channel exists, with a secret of its own: it refuses Herald's ping, which connecting accepts.
    const first = startReceiver(dir, { WEBHOOK_SECRET: newWebhookSecret(), PORT: '0' });
    running.push(first);
    const port = Number((await first.line(/^listening on port \d+$/)).split(' ').at(-1));
    const url = `http://127.0.0.1:${port}/`;

    const tenant = await createTenant(t);
    const connected = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: 'webhook', url, name: 'Site' },
    });
    expect(connected.statusCode, connected.body).toBe(200);
    const { secret, integration } = connected.json() as { secret: string; integration: { id: string } };
    expect(first.lines.filter((l) => l.startsWith('verified'))).toEqual([]);
    await first.stop();

    // Restarted with the secret shown once, on the same address.
    const receiver = startReceiver(dir, { WEBHOOK_SECRET: secret, PORT: String(port) });
    running.push(receiver);
    await receiver.line(new RegExp(`^listening on port ${port}$`));

    const [post] = await createOk(t, tenant, {
      type: 'now',
      date: new Date().toISOString(),
      posts: [{ integration: { id: integration.id }, value: [{ content: '<p>We launch today.</p>' }] }],
    });
    await t.settle();
    expect((await getPost(t, tenant, post!.postId)).state).toBe('PUBLISHED');
    expect(await receiver.line(/^verified /)).toBe(`verified msg_${post!.postId}_0: post.published We launch today.`);

    // The same kind of delivery, signed with another secret, is refused.
    const body = JSON.stringify({ type: 'post.published', timestamp: new Date().toISOString(), data: { text: 'forged' } });
    const now = new Date();
    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(newWebhookSecret()).sign('msg_forged', now, body),
      },
      body,
    });
    expect(forged.status).toBe(401);
    expect(receiver.lines.filter((l) => l.includes('forged'))).toEqual([]);
  });
});
