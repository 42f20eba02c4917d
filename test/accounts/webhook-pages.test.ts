import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, unique, type TestApp } from '../helpers/app.ts';
import { signedInOwner as ownerOf, signInWithCode } from '../helpers/account-pages.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import { csrfIn, secretIn } from '../helpers/web-agent.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { deliverAll, verified } from '../webhooks/helpers.ts';

let mail: Awaited<ReturnType<typeof startMailServer>>;
let t: TestApp;
const clock = new ManualClock('2026-11-27T10:00:00.000Z');

beforeAll(async () => {
  mail = await startMailServer();
  t = await createTestApp({
    clock,
    env: {
      SMTP_URL: mail.url,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /public/v1/signup/start': 10_000, 'POST /account/sign-in': 10_000 }),
    },
  });
});

const endpointIdIn = (html: string) => /data-endpoint-id="([^"]+)"/.exec(html)?.[1];

describe('the webhooks page (developer settings)', () => {
  it('adds an endpoint (secret shown once), sends a test event and shows its delivery, disables, enables, rotates and deletes after confirming', async () => {
    const { agent, workspaceId } = await ownerOf(t, mail);
    const hooks = await startWebhookReceiver();
    let page = await agent.get('/account/webhooks');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No webhook endpoints yet.');
    expect(page.body).toContain('href="/account/webhooks"');

    // Without the CSRF token, nothing is made.
    expect((await agent.post('/account/webhooks', { url: hooks.url, eventTypes: 'post.published' })).statusCode).toBe(403);

    page = await agent.post(
      '/account/webhooks',
      { url: hooks.url, description: 'CRM', eventTypes: ['post.published', 'post.failed'] },
      { from: page.body },
    );
    expect(page.statusCode, page.body).toBe(200);
    const secret = secretIn(page.body)!;
    expect(secret).toMatch(/^whsec_/);
    const id = endpointIdIn(page.body)!;
    const later = await agent.get('/account/webhooks');
    expect(later.body).not.toContain(secret);
    expect(later.body).toContain('post.published, post.failed');
    const api = await t.services.webhooks.list(await ownerAccess(workspaceId));
    expect(api.endpoints.map((e) => e.id)).toEqual([id]);

    page = await agent.post(`/account/webhooks/${id}/test`, {}, { from: later.body });
    expect(page.body).toContain('Test event');
    await deliverAll(t);
    expect(verified(hooks.deliveries[0]!, secret).type).toBe('webhook.test');
    page = await agent.get('/account/webhooks');
    expect(page.body).toMatch(/<code>webhook\.test<\/code>, succeeded \(200\), 1 attempt/);

    page = await agent.post(`/account/webhooks/${id}/disable`, {}, { from: page.body });
    expect(page.body).toContain('is disabled.');
    expect((await t.services.webhooks.get(await ownerAccess(workspaceId), id)).enabled).toBe(false);
    page = await agent.post(`/account/webhooks/${id}/enable`, {}, { from: page.body });
    expect((await t.services.webhooks.get(await ownerAccess(workspaceId), id)).enabled).toBe(true);

    // Rotating asks first; the secret changes only once confirmed.
    const askRotate = await agent.post(`/account/webhooks/${id}/rotate`, {}, { from: page.body });
    expect(askRotate.body).toContain('id="confirm-title"');
    expect(secretIn(askRotate.body)).toBeNull();
    page = await agent.post(`/account/webhooks/${id}/rotate`, { confirm: 'yes' }, { from: askRotate.body });
    const rotated = secretIn(page.body)!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    const askDelete = await agent.post(`/account/webhooks/${id}/delete`, {}, { from: page.body });
    expect(askDelete.body).toContain('Delete the webhook endpoint');
    expect((await t.services.webhooks.list(await ownerAccess(workspaceId))).endpoints).toHaveLength(1);
    page = await agent.post(`/account/webhooks/${id}/delete`, { confirm: 'yes' }, { from: askDelete.body });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No webhook endpoints yet.');
    expect((await t.services.webhooks.list(await ownerAccess(workspaceId))).endpoints).toEqual([]);
  });

  it("refuses an internal or plain-http URL and no events, on the page; another workspace's endpoint is not found", async () => {
    const { agent } = await ownerOf(t, mail);
    const page = await agent.get('/account/webhooks');
    const internal = await agent.post(
      '/account/webhooks',
      { url: 'https://10.0.0.1/in', eventTypes: 'post.published' },
      { from: page.body },
    );
    expect(internal.statusCode).toBe(400);
    expect(internal.body).toContain('role="alert"');
    const none = await agent.post('/account/webhooks', { url: 'https://hooks.example.test/in' }, { from: page.body });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('eventTypes');

    const other = await ownerOf(t, mail);
    const otherPage = await other.agent.post(
      '/account/webhooks',
      { url: 'https://hooks.example.test/in', eventTypes: 'post.published' },
      { from: (await other.agent.get('/account/webhooks')).body },
    );
    const theirs = endpointIdIn(otherPage.body)!;
    expect((await agent.post(`/account/webhooks/${theirs}/delete`, {}, { from: page.body })).statusCode).toBe(404);
    expect((await agent.post(`/account/webhooks/${theirs}/delete`, { confirm: 'yes' }, { from: page.body })).statusCode).toBe(404);
    expect((await agent.post(`/account/webhooks/${theirs}/disable`, {}, { from: page.body })).statusCode).toBe(404);
  });

  it('is for owners and admins only: an editor is refused the page and its forms, and has no link to it', async () => {
    const owner = await ownerOf(t, mail);
    const email = `${unique('editor')}@example.test`;
    const user = await t.services.users.create({ email });
    await t.services.workspaces.addMember(owner.workspaceId, user.id, 'editor');
    const editor = await signInWithCode(t, mail, email);
    const keys = await editor.get('/account/keys');
    expect(keys.body).not.toContain('href="/account/webhooks"');
    const page = await editor.get('/account/webhooks');
    expect(page.statusCode).toBe(403);
    const token = csrfIn(keys.body);
    const posted = await editor.post('/account/webhooks', {
      _csrf: token,
      url: 'https://hooks.example.test/in',
      eventTypes: 'post.published',
    });
    expect(posted.statusCode).toBe(403);
    expect((await t.services.webhooks.list(await ownerAccess(owner.workspaceId))).endpoints).toEqual([]);
  });
});

/** The workspace owner's access, as a full-workspace REST key of theirs would have it. */
async function ownerAccess(workspaceId: string) {
  const owner = (await t.services.workspaces.members(workspaceId)).find((m) => m.role === 'owner')!;
  const { secret } = await t.services.apiKeys.create({ userId: owner.userId, kind: 'rest', workspaceId });
  return t.services.access.select(await t.services.apiKeys.authenticate(secret, 'rest'), undefined);
}
