import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createOk, getPost, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, deliverAll, verified } from '../webhooks/helpers.ts';

// Approval before publishing, through the HTTP stack with the engine running and time moved by the clock.

const clock = new ManualClock('2026-07-01T08:00:00.000Z');
let t: TestApp;
let platform: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  platform = await startWebhookReceiver();
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '1' } });
});

const deliveriesFor = (postId: string) => platform.deliveries.filter((d) => d.body.data.postId === postId);

async function at(iso: string) {
  clock.set(iso);
  await t.settle();
}

type Team = { owner: Tenant & { channelId: string }; editor: Tenant; contributor: Tenant; viewer: Tenant };

/** A workspace with a webhook channel, its owner, an editor, a contributor and a viewer; approval asked of `roles`. */
async function team(roles: string[] = ['contributor']): Promise<Team> {
  const owner = await webhookTenant(t, platform.url);
  const member = (role: 'editor' | 'contributor' | 'viewer') => createTenant(t, { role, workspaceId: owner.workspaceId });
  const result = { owner, editor: await member('editor'), contributor: await member('contributor'), viewer: await member('viewer') };
  const set = await settings(owner, roles);
  expect(set.statusCode, set.body).toBe(200);
  return result;
}

const settings = (who: Tenant, roles: string[]) =>
  t.request({ method: 'PUT', url: '/public/v1/approval-settings', key: who.key, payload: { roles } });
const approve = (who: Tenant, id: string, comment?: string) =>
  t.request({ method: 'POST', url: `/public/v1/posts/${id}/approve`, key: who.key, payload: comment === undefined ? {} : { comment } });
const reject = (who: Tenant, id: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: `/public/v1/posts/${id}/reject`, key: who.key, payload });
const patch = (who: Tenant, id: string, payload: Record<string, unknown>) =>
  t.request({ method: 'PATCH', url: `/public/v1/posts/${id}`, key: who.key, payload });

async function notifications(who: Tenant) {
  const res = await t.request({ method: 'GET', url: '/public/v1/notifications', key: who.key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().notifications as Array<{ type: string; message: string; postId: string | null }>;
}

/** A post the contributor schedules for `date`: it awaits approval. */
async function submitted(tm: Team, date: string, content = 'Hello world'): Promise<string> {
  const [created] = await createOk(t, tm.contributor, postBody(tm.owner.channelId, { date }, [{ content: `<p>${content}</p>` }]));
  return created!.postId;
}

describe('the setting', () => {
  it('is off by default; owners and admins set it, other roles get 403; a bad role is a 400 naming the field', async () => {
    const tm = await team([]);
    const read = await t.request({ method: 'GET', url: '/public/v1/approval-settings', key: tm.contributor.key });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ roles: [], approvers: ['owner', 'admin', 'editor'] });
    for (const who of [tm.editor, tm.contributor]) {
      const refused = await settings(who, ['contributor']);
      expect(refused.statusCode, refused.body).toBe(403);
    }
    expect((await settings(tm.editor, ['contributor'])).json()).toMatchObject({ code: 'role_forbidden' });
    const bad = await settings(tm.owner, ['owner']);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/roles/);
    const both = await settings(tm.owner, ['editor', 'contributor']);
    expect(both.json()).toMatchObject({ roles: ['editor', 'contributor'], approvers: ['owner', 'admin'] });
  });

  it('off: a contributor still cannot schedule (403 missing_scope); on: the same request waits for approval', async () => {
    const tm = await team([]);
    const body = postBody(tm.owner.channelId, { date: '2026-07-01T12:00:00.000Z' });
    const refused = await t.request({ method: 'POST', url: '/public/v1/posts', key: tm.contributor.key, payload: body });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:publish' });
    expect((await settings(tm.owner, ['contributor'])).statusCode).toBe(200);
    const [created] = await createOk(t, tm.contributor, body);
    const post = (await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}`, key: tm.owner.key })).json();
    expect(post).toMatchObject({
      state: 'AWAITING_APPROVAL',
      approvals: [{ decision: 'requested', by: { id: tm.contributor.userId }, at: clock.now().toISOString(), comment: null }],
    });
    // A viewer has no posts:draft: approval does not let it schedule.
    const viewer = await t.request({ method: 'POST', url: '/public/v1/posts', key: tm.viewer.key, payload: body });
    expect(viewer.statusCode).toBe(403);
    // The owner's own posts go straight to the queue.
    const [own] = await createOk(t, tm.owner, body);
    expect((await getPost(t, tm.owner, own!.postId)).state).toBe('QUEUE');
  });

  it("editors too, when the setting names them: an editor's post waits, and editors may no longer approve", async () => {
    const tm = await team(['editor']);
    const [created] = await createOk(t, tm.editor, postBody(tm.owner.channelId, { date: '2026-07-01T12:00:00.000Z' }));
    expect((await getPost(t, tm.owner, created!.postId)).state).toBe('AWAITING_APPROVAL');
    const refused = await approve(tm.editor, created!.postId);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'approval_forbidden' });
    expect((await approve(tm.owner, created!.postId)).statusCode).toBe(200);
  });
});

describe('approving', () => {
  it('the engine never publishes a post awaiting approval (its date passes, the sweep runs); approved, it goes out at its date', async () => {
    const tm = await team();
    clock.set('2026-07-02T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-02T09:00:00.000Z');
    await at('2026-07-02T09:00:00.000Z');
    await t.publisher.sweep();
    await t.settle();
    expect(deliveriesFor(id)).toHaveLength(0);
    expect((await getPost(t, tm.owner, id)).state).toBe('AWAITING_APPROVAL');
    const notes = await notifications(tm.owner);
    expect(notes).toContainEqual(expect.objectContaining({ type: 'approval_requested', postId: id }));

    // Listed for the approvers.
    const list = await t.request({ method: 'GET', url: '/public/v1/posts/awaiting-approval', key: tm.editor.key });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().posts.map((p: { id: string }) => p.id)).toEqual([id]);

    // Approved after its date: published at once, the approval time its new publish date.
    clock.set('2026-07-02T09:30:00.000Z');
    const res = await approve(tm.editor, id, 'Fine');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      state: 'QUEUE',
      publishDate: '2026-07-02T09:30:00.000Z',
      approvals: [
        { decision: 'requested', by: { id: tm.contributor.userId } },
        { decision: 'approved', by: { id: tm.editor.userId }, at: '2026-07-02T09:30:00.000Z', comment: 'Fine' },
      ],
    });
    await t.settle();
    expect(deliveriesFor(id)).toHaveLength(1);
    expect((await getPost(t, tm.owner, id)).state).toBe('PUBLISHED');
    expect(await notifications(tm.owner)).toContainEqual(
      expect.objectContaining({ type: 'post_approved', postId: id, message: expect.stringMatching(/approved by/) }),
    );
  });

  it('approved before its date: waits for it; approving again answers the post unchanged and records nothing more', async () => {
    const tm = await team();
    clock.set('2026-07-03T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-03T10:00:00.000Z');
    const first = await approve(tm.owner, id);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ state: 'QUEUE', publishDate: '2026-07-03T10:00:00.000Z' });
    const again = await approve(tm.owner, id);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    await at('2026-07-03T09:59:59.999Z');
    expect(deliveriesFor(id)).toHaveLength(0);
    await at('2026-07-03T10:00:00.000Z');
    expect(deliveriesFor(id)).toHaveLength(1);
    // Published: no decision applies any more.
    const late = await reject(tm.owner, id, { comment: 'too late' });
    expect(late.statusCode).toBe(400);
  });

  it('a contributor cannot approve (403); another workspace gets 404; a draft is not awaiting approval (400)', async () => {
    const tm = await team();
    const other = await team();
    clock.set('2026-07-04T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-04T10:00:00.000Z');
    const contributor = await approve(tm.contributor, id);
    expect(contributor.statusCode).toBe(403);
    expect(contributor.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:publish' });
    for (const res of [await approve(other.owner, id), await reject(other.owner, id, { comment: 'no' })]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
    const [draft] = await createOk(t, tm.owner, postBody(tm.owner.channelId, { type: 'draft', date: '2026-07-04T10:00:00.000Z' }));
    const notAwaiting = await approve(tm.owner, draft!.postId);
    expect(notAwaiting.statusCode).toBe(400);
    expect(notAwaiting.json()).toMatchObject({ code: 'not_awaiting_approval' });
    expect((await getPost(t, tm.owner, id)).state).toBe('AWAITING_APPROVAL');
  });
});

describe('rejecting', () => {
  it('needs a comment; sends the post back to draft, tells the author, and a retry answers the same post', async () => {
    const tm = await team();
    clock.set('2026-07-05T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-05T10:00:00.000Z');
    const bare = await reject(tm.owner, id, {});
    expect(bare.statusCode).toBe(400);
    expect(bare.body).toMatch(/comment/);
    const blank = await reject(tm.owner, id, { comment: '   ' });
    expect(blank.statusCode).toBe(400);
    clock.set('2026-07-05T08:10:00.000Z');
    const res = await reject(tm.editor, id, { comment: 'Link the announcement, please.' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      state: 'DRAFT',
      approvals: [
        { decision: 'requested' },
        { decision: 'rejected', by: { id: tm.editor.userId }, at: '2026-07-05T08:10:00.000Z', comment: 'Link the announcement, please.' },
      ],
    });
    const again = await reject(tm.editor, id, { comment: 'Link the announcement, please.' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(res.json());
    const other = await reject(tm.editor, id, { comment: 'Something else' });
    expect(other.statusCode).toBe(400);
    const rejected = (await notifications(tm.contributor)).find((n) => n.type === 'post_rejected');
    expect(rejected).toMatchObject({ postId: id, message: expect.stringContaining('Link the announcement, please.') });
    expect(rejected!.message).toMatch(/your post/);
    await at('2026-07-05T10:10:00.000Z');
    expect(deliveriesFor(id)).toHaveLength(0);

    // The author mends it and asks again: it waits again.
    const mended = await patch(tm.contributor, id, { content: 'Mended', type: 'schedule' });
    expect(mended.statusCode, mended.body).toBe(400);
    expect(mended.json()).toMatchObject({ code: 'date_in_past' });
    const rescheduled = await patch(tm.contributor, id, { content: 'Mended', type: 'schedule', date: '2026-07-05T12:00:00.000Z' });
    expect(rescheduled.statusCode, rescheduled.body).toBe(200);
    expect(rescheduled.json().state).toBe('AWAITING_APPROVAL');
    expect(rescheduled.json().approvals.map((s: { decision: string }) => s.decision)).toEqual(['requested', 'rejected', 'requested']);
  });
});

describe('edits and the other paths to the engine', () => {
  it("editing an approved post's content sends it back for approval; the job queued for its date publishes nothing", async () => {
    const tm = await team();
    clock.set('2026-07-06T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-06T10:00:00.000Z');
    expect((await approve(tm.owner, id)).json().state).toBe('QUEUE');
    const edited = await patch(tm.contributor, id, { content: 'Changed after approval' });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().state).toBe('AWAITING_APPROVAL');
    await at('2026-07-06T10:00:00.000Z');
    await t.publisher.sweep();
    await t.settle();
    expect(deliveriesFor(id)).toHaveLength(0);
    // An owner's edit of a post awaiting approval approves nothing.
    const byOwner = await patch(tm.owner, id, { content: 'Owner touch', date: '2026-07-06T11:00:00.000Z' });
    expect(byOwner.json().state).toBe('AWAITING_APPROVAL');
    expect((await approve(tm.owner, id)).statusCode).toBe(200);
    await at('2026-07-06T11:00:00.000Z');
    expect(deliveriesFor(id).map((d) => d.body.data.text)).toEqual(['Owner touch']);
  });

  it('an edit by an approver keeps an approved post in the queue', async () => {
    const tm = await team();
    clock.set('2026-07-07T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-07T10:00:00.000Z');
    await approve(tm.owner, id);
    expect((await patch(tm.editor, id, { content: 'Editor fix' })).json().state).toBe('QUEUE');
    await at('2026-07-07T10:00:00.000Z');
    expect(deliveriesFor(id).map((d) => d.body.data.text)).toEqual(['Editor fix']);
  });

  it('a retry never publishes a post sent back for approval meanwhile', async () => {
    const tm = await team();
    clock.set('2026-07-08T08:00:00.000Z');
    platform.answer({ status: 429, headers: { 'retry-after': '120' }, body: { error: 'slow down' } });
    const [created] = await createOk(t, tm.owner, postBody(tm.owner.channelId, { type: 'now' }));
    const id = created!.postId;
    await t.settle();
    expect(deliveriesFor(id)).toHaveLength(1);
    expect((await getPost(t, tm.owner, id)).state).toBe('QUEUE');
    const edited = await patch(tm.contributor, id, { content: 'Contributor change' });
    expect(edited.json().state).toBe('AWAITING_APPROVAL');
    await at('2026-07-08T08:02:00.000Z');
    await at('2026-07-08T09:00:00.000Z');
    expect(deliveriesFor(id)).toHaveLength(1);
    expect((await getPost(t, tm.owner, id)).state).toBe('AWAITING_APPROVAL');
  });

  it('type "queue": the post holds its slot while it waits, and its slot passes without a publish', async () => {
    const tm = await team();
    clock.set('2026-07-09T06:00:00.000Z');
    const res = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tm.contributor.key,
      payload: { type: 'queue', posts: [{ integration: { id: tm.owner.channelId }, value: [{ content: 'Queued' }] }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json()[0].postId as string;
    const post = await getPost(t, tm.owner, id);
    expect(post.state).toBe('AWAITING_APPROVAL');
    // The next post queued takes another slot.
    const [owners] = (
      await t.request({
        method: 'POST',
        url: '/public/v1/posts',
        key: tm.owner.key,
        payload: { type: 'queue', posts: [{ integration: { id: tm.owner.channelId }, value: [{ content: 'Next' }] }] },
      })
    ).json();
    expect((await getPost(t, tm.owner, owners.postId)).publishDate > post.publishDate).toBe(true);
    await at(post.publishDate);
    await t.publisher.sweep();
    await t.settle();
    expect(deliveriesFor(id)).toHaveLength(0);
  });

  it('PUT /posts/:id/status by a contributor: schedule waits for approval, draft withdraws it', async () => {
    const tm = await team();
    clock.set('2026-07-10T08:00:00.000Z');
    const [draft] = await createOk(t, tm.contributor, postBody(tm.owner.channelId, { type: 'draft', date: '2026-07-10T10:00:00.000Z' }));
    const status = (s: string) =>
      t.request({ method: 'PUT', url: `/public/v1/posts/${draft!.postId}/status`, key: tm.contributor.key, payload: { status: s } });
    const scheduled = await status('schedule');
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    expect(scheduled.json().state).toBe('AWAITING_APPROVAL');
    expect((await status('schedule')).json().state).toBe('AWAITING_APPROVAL');
    expect((await status('draft')).json().state).toBe('DRAFT');
  });
});

describe('webhook events', () => {
  it('post.awaiting_approval, post.approved and post.rejected, each once', async () => {
    const tm = await team();
    const hooks = await startWebhookReceiver();
    const endpoint = await createEndpoint(t, tm.owner, hooks.url, ['post.awaiting_approval', 'post.approved', 'post.rejected']);
    clock.set('2026-07-11T08:00:00.000Z');
    const first = await submitted(tm, '2026-07-11T10:00:00.000Z');
    const second = await submitted(tm, '2026-07-11T11:00:00.000Z');
    await approve(tm.owner, first, 'ok');
    await reject(tm.owner, second, { comment: 'not this one' });
    await deliverAll(t);
    // Deliveries to one endpoint run several at a time, so they may arrive in any order.
    const events = hooks.deliveries.map((d) => verified(d, endpoint.secret));
    const pairs = events.map((e) => `${e.type} ${(e.data.post as { id: string }).id}`);
    expect(pairs.sort()).toEqual(
      [`post.awaiting_approval ${first}`, `post.awaiting_approval ${second}`, `post.approved ${first}`, `post.rejected ${second}`].sort(),
    );
    expect(events.find((e) => e.type === 'post.approved')!.data).toMatchObject({ approvedBy: tm.owner.userId, comment: 'ok' });
    expect(events.find((e) => e.type === 'post.rejected')!.data).toMatchObject({
      rejectedBy: tm.owner.userId,
      authorId: tm.contributor.userId,
      comment: 'not this one',
    });
  });
});

/** A post as GET /posts/:id answers it, whole. */
const readPost = async (who: Tenant, id: string) =>
  (await t.request({ method: 'GET', url: `/public/v1/posts/${id}`, key: who.key })).json() as Record<string, unknown> & {
    state: string;
    content: string;
    approvals: Array<{ decision: string }>;
  };

describe('two approvers at once', () => {
  it('one approves while the other rejects: one decision stands, the other gets 409 post_changed, whichever reads first', async () => {
    const tm = await team();
    clock.set('2026-07-20T08:00:00.000Z');
    for (let i = 0; i < 6; i += 1) {
      const id = await submitted(tm, '2026-07-20T10:00:00.000Z', `Race ${i}`);
      // Both orders of sending, so each side both wins and loses some races.
      const [approved, rejected] =
        i % 2 === 0
          ? await Promise.all([approve(tm.owner, id), reject(tm.editor, id, { comment: 'No' })])
          : (await Promise.all([reject(tm.editor, id, { comment: 'No' }), approve(tm.owner, id)])).reverse();
      const statuses = [approved!.statusCode, rejected!.statusCode].sort();
      expect(statuses, `${approved!.body} ${rejected!.body}`).toEqual([200, 409]);
      const [winner, loser] = approved!.statusCode === 200 ? [approved!, rejected!] : [rejected!, approved!];
      expect(loser.json()).toMatchObject({ code: 'post_changed', msg: expect.stringContaining(id) });
      const post = await readPost(tm.owner, id);
      expect(post).toEqual(winner.json());
      expect(post.state).toBe(winner === approved ? 'QUEUE' : 'DRAFT');
      // One decision recorded, the winner's.
      expect(post.approvals.map((s: { decision: string }) => s.decision)).toEqual([
        'requested',
        winner === approved ? 'approved' : 'rejected',
      ]);
    }
  });

  it('an edit landing while an approver decides: the approval applies to the content it answers, or the edit sends the post back; the loser of a race gets a 409', async () => {
    const tm = await team();
    clock.set('2026-07-21T08:00:00.000Z');
    for (let i = 0; i < 4; i += 1) {
      const id = await submitted(tm, '2026-07-21T10:00:00.000Z', `Before ${i}`);
      const [decision, edit] = await Promise.all([approve(tm.owner, id), patch(tm.contributor, id, { content: `After ${i}` })]);
      const post = await readPost(tm.owner, id);
      if (edit.statusCode === 409) {
        // The approval won and the edit lost: the post approved is the one the approver was answered.
        expect(edit.json()).toMatchObject({ code: expect.any(String), msg: expect.any(String) });
        expect(decision.statusCode, decision.body).toBe(200);
        expect(post).toEqual(decision.json());
        expect(post).toMatchObject({ state: 'QUEUE', content: `<p>Before ${i}</p>` });
        continue;
      }
      expect(edit.statusCode, edit.body).toBe(200);
      expect(post.content).toBe(`<p>After ${i}</p>`);
      if (decision.statusCode === 409) expect(decision.json()).toMatchObject({ code: 'post_changed' });
      else {
        expect(decision.statusCode, decision.body).toBe(200);
        // Approved then edited: back to waiting. Edited then approved: the approval answered the content it approved, the one queued.
        if (post.state === 'QUEUE') expect(decision.json()).toEqual(post);
        else expect(post.state).toBe('AWAITING_APPROVAL');
      }
    }
  });
});

describe('Idempotency-Key on a decision', () => {
  const decide = (who: Tenant, id: string, decision: 'approve' | 'reject', key: string, payload: Record<string, unknown>) =>
    t.request({
      method: 'POST',
      url: `/public/v1/posts/${id}/${decision}`,
      key: who.key,
      headers: { 'idempotency-key': key },
      payload,
    });

  it('approve: a replay answers the first answer, even once the post has moved on; another comment or post with the key is a 400', async () => {
    const tm = await team();
    clock.set('2026-07-22T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-22T10:00:00.000Z');
    const key = randomUUID();
    // Two sends of the same request at once: one decides, the other answers what it decided.
    const [first, twin] = await Promise.all([
      decide(tm.owner, id, 'approve', key, { comment: 'ok' }),
      decide(tm.owner, id, 'approve', key, { comment: 'ok' }),
    ]);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ state: 'QUEUE', approvals: [{ decision: 'requested' }, { decision: 'approved', comment: 'ok' }] });
    expect(twin.statusCode, twin.body).toBe(200);
    expect(twin.json()).toEqual(first.json());
    // The post leaves the queue; the replay still answers the first decision and decides nothing again.
    const withdrawn = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${id}/status`,
      key: tm.owner.key,
      payload: { status: 'draft' },
    });
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    const replay = await decide(tm.owner, id, 'approve', key, { comment: 'ok' });
    expect(replay.statusCode, replay.body).toBe(200);
    expect(replay.json()).toEqual(first.json());
    const post = await readPost(tm.owner, id);
    expect(post.state).toBe('DRAFT');
    expect(post.approvals.map((s) => s.decision)).toEqual(['requested', 'approved']);
    expect((await notifications(tm.contributor)).filter((n) => n.type === 'post_approved' && n.postId === id)).toHaveLength(1);

    const otherComment = await decide(tm.owner, id, 'approve', key, { comment: 'changed my mind' });
    expect(otherComment.statusCode).toBe(400);
    expect(otherComment.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const next = await submitted(tm, '2026-07-22T11:00:00.000Z');
    const otherPost = await decide(tm.owner, next, 'approve', key, { comment: 'ok' });
    expect(otherPost.statusCode).toBe(400);
    expect(otherPost.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect((await getPost(t, tm.owner, next)).state).toBe('AWAITING_APPROVAL');
  });

  it('every permission check runs before a replay: a contributor with the key gets 403, another workspace 404', async () => {
    const tm = await team();
    const other = await team();
    clock.set('2026-07-23T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-23T10:00:00.000Z');
    const key = randomUUID();
    expect((await decide(tm.editor, id, 'approve', key, {})).statusCode).toBe(200);
    const contributor = await decide(tm.contributor, id, 'approve', key, {});
    expect(contributor.statusCode).toBe(403);
    expect(contributor.json()).toMatchObject({ code: 'missing_scope' });
    const stranger = await decide(other.owner, id, 'approve', key, {});
    expect(stranger.statusCode).toBe(404);
    // Another approver of the workspace with the key is answered the first decision.
    const owner = await decide(tm.owner, id, 'approve', key, {});
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.json()).toMatchObject({
      state: 'QUEUE',
      approvals: [{ decision: 'requested' }, { decision: 'approved', by: { id: tm.editor.userId } }],
    });
  });

  it('reject: a replay answers the first answer and tells the author once; the same key for an approval is a 400', async () => {
    const tm = await team();
    clock.set('2026-07-24T08:00:00.000Z');
    const id = await submitted(tm, '2026-07-24T10:00:00.000Z');
    const key = randomUUID();
    const first = await decide(tm.owner, id, 'reject', key, { comment: 'Not yet' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      state: 'DRAFT',
      approvals: [{ decision: 'requested' }, { decision: 'rejected', comment: 'Not yet' }],
    });
    // The author mends it and asks again; the replay answers the first rejection and rejects nothing.
    const mended = await patch(tm.contributor, id, { content: 'Mended', type: 'schedule' });
    expect(mended.statusCode, mended.body).toBe(200);
    expect(mended.json().state).toBe('AWAITING_APPROVAL');
    const replay = await decide(tm.owner, id, 'reject', key, { comment: 'Not yet' });
    expect(replay.statusCode, replay.body).toBe(200);
    expect(replay.json()).toEqual(first.json());
    expect((await getPost(t, tm.owner, id)).state).toBe('AWAITING_APPROVAL');
    expect((await notifications(tm.contributor)).filter((n) => n.type === 'post_rejected' && n.postId === id)).toHaveLength(1);
    const otherComment = await decide(tm.owner, id, 'reject', key, { comment: 'Still not' });
    expect(otherComment.statusCode).toBe(400);
    expect(otherComment.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const asApproval = await decide(tm.owner, id, 'approve', key, { comment: 'Not yet' });
    expect(asApproval.statusCode).toBe(400);
    expect(asApproval.json()).toMatchObject({ code: 'idempotency_key_reused' });
    // A refused decision keeps no answer: its key is free for the next request.
    const freed = randomUUID();
    const [draft] = await createOk(t, tm.owner, postBody(tm.owner.channelId, { type: 'draft', date: '2026-07-24T12:00:00.000Z' }));
    expect((await decide(tm.owner, draft!.postId, 'approve', freed, {})).json()).toMatchObject({ code: 'not_awaiting_approval' });
    const approved = await decide(tm.owner, id, 'approve', freed, {});
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().state).toBe('QUEUE');
  });
});

describe('a bulk import by a role that needs approval', () => {
  it('its scheduled rows (written together, and a queued row alone) wait for approval; the engine never publishes them until approved', async () => {
    const tm = await team();
    clock.set('2026-07-25T08:00:00.000Z');
    const rows = [
      { channels: tm.owner.channelId, date: '2026-07-25T09:00:00.000Z', content: 'Imported one' },
      { channels: tm.owner.channelId, date: '2026-07-25T09:30:00.000Z', content: 'Imported two' },
      { channels: tm.owner.channelId, date: 'queue', content: 'Imported at the next slot' },
    ];
    const res = await t.request({ method: 'POST', url: '/public/v1/imports', key: tm.contributor.key, payload: { rows } });
    expect(res.statusCode, res.body).toBe(200);
    const result = res.json() as { status: string; created: number; posts: Array<{ row: number; postIds: string[] }> };
    expect(result).toMatchObject({ status: 'done', created: 3 });
    const ids = result.posts.flatMap((p) => p.postIds);
    expect(ids).toHaveLength(3);
    const asked = (await notifications(tm.owner)).filter((n) => n.type === 'approval_requested');
    for (const id of ids) {
      const post = await readPost(tm.owner, id);
      expect(post.state).toBe('AWAITING_APPROVAL');
      expect(post.approvals.map((s) => s.decision)).toEqual(['requested']);
      expect(asked.filter((n) => n.postId === id)).toHaveLength(1);
    }
    await at('2026-07-26T08:00:00.000Z');
    await t.publisher.sweep();
    await t.settle();
    for (const id of ids) expect(deliveriesFor(id)).toHaveLength(0);
    // Approved after its date: published at once; the others still wait.
    expect((await approve(tm.owner, ids[0]!)).statusCode).toBe(200);
    await t.settle();
    expect(deliveriesFor(ids[0]!)).toHaveLength(1);
    for (const id of ids.slice(1)) {
      expect(deliveriesFor(id)).toHaveLength(0);
      expect((await getPost(t, tm.owner, id)).state).toBe('AWAITING_APPROVAL');
    }
  });
});
