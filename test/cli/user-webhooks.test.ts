import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { heraldInProcess } from '../helpers/process.ts';
import type { webhookTenant } from '../helpers/posts.ts';
import { userCommandServer } from '../helpers/user-command.ts';

let t: TestApp;
let url: string;
let tenant: Awaited<ReturnType<typeof webhookTenant>>;
let home: string;

beforeAll(async () => {
  ({ t, url, tenant } = await userCommandServer());
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-webhooks-'));
});

afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const cli = (args: string[]) =>
  heraldInProcess(args, { XDG_CONFIG_HOME: path.join(home, 'config'), TZ: 'UTC', HERALD_URL: url, HERALD_API_KEY: tenant.key });

describe('herald webhooks', () => {
  it('creates an endpoint (printing its secret once), lists it, sends a test event, shows deliveries, rotates and deletes', async () => {
    const created = await cli(['webhooks', 'create', 'http://127.0.0.1:9/hook', '--event', 'post.published', '--event', 'post.failed']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/secret:\s+whsec_\S+ \(shown once/);
    const id = /^id:\s+(\S+)/m.exec(created.stdout)![1]!;

    const listed = await cli(['webhooks', 'list']);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('post.published,post.failed');
    expect(listed.stdout).not.toContain('whsec_');

    const sent = await cli(['webhooks', 'test', id]);
    expect(sent.code, sent.stderr).toBe(0);
    // What the worker does first (this server runs none): the event becomes a delivery to the endpoint.
    await t.services.webhookDelivery.dispatch();
    const deliveries = await cli(['webhooks', 'deliveries', id, '--json']);
    expect(JSON.parse(deliveries.stdout).deliveries).toEqual([expect.objectContaining({ type: 'webhook.test', state: 'pending' })]);

    const rotated = await cli(['webhooks', 'rotate', id]);
    expect(rotated.stdout).toMatch(/secret:\s+whsec_/);
    expect((await cli(['webhooks', 'delete', id])).stdout).toContain(`Deleted webhook endpoint ${id}.`);
    expect((await t.request({ method: 'GET', url: '/public/v1/webhooks', key: tenant.key })).json().endpoints).toEqual([]);
  });

  it('a bad event type is the API’s 400, said on stderr with a failing exit code', async () => {
    const refused = await cli(['webhooks', 'create', 'https://example.com/h', '--event', 'post.exploded']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/eventTypes/);
  });
});
