import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { createOk, getPost, postBody } from '../helpers/posts.ts';
import { WebAgent } from '../helpers/web-agent.ts';
import { createPerson } from '../oauth/helpers.ts';

const clock = new ManualClock('2026-11-27T10:00:00.000Z');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});

/** A browser signed in as a new member with `role` (in `workspaceId`, or a new workspace). */
async function browser(role: 'owner' | 'contributor', workspaceId?: string) {
  const person = await createPerson(t, role, workspaceId);
  const agent = new WebAgent(t);
  agent.cookies.set('herald_session', person.sessionToken);
  return { agent, ...person };
}

const postIdsIn = (page: string) => [...page.matchAll(/data-post-id="([^"]+)"/g)].map((m) => m[1]);

describe('the approvals page', () => {
  it('owners set who needs approval; approvers approve and reject with CSRF-protected forms; contributors follow their posts', async () => {
    const owner = await browser('owner');
    const channel = await t.services.channels.create(owner.workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
    });
    let page = await owner.agent.get('/account/approvals');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Nobody needs approval in this workspace');
    expect(page.body).toContain('href="/account/approvals"');

    // Without the CSRF token, nothing changes.
    expect((await owner.agent.post('/account/approvals/settings', { roles: 'contributor' })).statusCode).toBe(403);
    page = await owner.agent.post('/account/approvals/settings', { roles: 'contributor' }, { from: page.body });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Approval is now needed for: contributor.');
    expect(page.body).toMatch(/value="contributor" checked/);

    const writer = await createTenant(t, { role: 'contributor', workspaceId: owner.workspaceId });
    const [first] = await createOk(
      t,
      writer,
      postBody(channel.id, { date: '2026-11-28T09:00:00.000Z' }, [{ content: '<p>First &amp; best</p>' }]),
    );
    const [second] = await createOk(t, writer, postBody(channel.id, { date: '2026-11-27T10:30:00.000Z' }));
    page = await owner.agent.get('/account/approvals');
    expect(postIdsIn(page.body)).toEqual([second!.postId, first!.postId]);
    expect(page.body).toContain('First &#38; best');
    expect(page.body).toContain(`action="/account/approvals/${first!.postId}/approve"`);

    // A contributor sees the waiting posts, without the forms or the setting.
    const contributor = await browser('contributor', owner.workspaceId);
    const theirs = await contributor.agent.get('/account/approvals');
    expect(theirs.statusCode).toBe(200);
    expect(postIdsIn(theirs.body)).toHaveLength(2);
    expect(theirs.body).not.toContain('/approve"');
    expect(theirs.body).not.toContain('/account/approvals/settings');
    const refused = await contributor.agent.post(`/account/approvals/${first!.postId}/approve`, {}, { from: theirs.body });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('role="alert"');

    // Rejecting needs a comment.
    page = await owner.agent.post(`/account/approvals/${first!.postId}/reject`, { comment: ' ' }, { from: page.body });
    expect(page.statusCode).toBe(400);
    page = await owner.agent.post(`/account/approvals/${first!.postId}/reject`, { comment: 'Not yet' }, { from: page.body });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Rejected: the post is a draft again');
    expect(postIdsIn(page.body)).toEqual([second!.postId]);
    expect((await getPost(t, writer, first!.postId)).state).toBe('DRAFT');

    // Its date passed: approving asks first, keeping the note, then publishes at once.
    clock.set('2026-11-27T11:00:00.000Z');
    const ask = await owner.agent.post(`/account/approvals/${second!.postId}/approve`, { comment: 'Late but fine' }, { from: page.body });
    expect(ask.body).toContain('id="confirm-title"');
    expect(ask.body).toContain('name="comment" value="Late but fine"');
    expect((await getPost(t, writer, second!.postId)).state).toBe('AWAITING_APPROVAL');
    page = await owner.agent.post(
      `/account/approvals/${second!.postId}/approve`,
      { confirm: 'yes', comment: 'Late but fine' },
      { from: ask.body },
    );
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('No post awaits approval.');
    const approved = (await t.request({ method: 'GET', url: `/public/v1/posts/${second!.postId}`, key: writer.key })).json();
    expect(approved).toMatchObject({ state: 'QUEUE', publishDate: '2026-11-27T11:00:00.000Z' });
    expect(approved.approvals.at(-1)).toMatchObject({ decision: 'approved', by: { id: owner.userId }, comment: 'Late but fine' });

    // Another workspace's owner: not found.
    const stranger = await browser('owner');
    const strangers = await stranger.agent.get('/account/approvals');
    const [third] = await createOk(t, writer, postBody(channel.id, { date: '2026-11-28T09:00:00.000Z' }));
    const notFound = await stranger.agent.post(`/account/approvals/${third!.postId}/approve`, {}, { from: strangers.body });
    expect(notFound.statusCode).toBe(404);
  });
});
