import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { createOk, createPosts, getPost, postBody, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
let t: TestApp;
const HOOK = 'https://hooks.example.test/in';

beforeAll(async () => {
  t = await createTestApp({ clock });
});

/** An owner with channels A1 and A2, and a key of the same workspace limited to A1. */
async function twoChannels() {
  const owner = await webhookTenant(t, HOOK);
  const a2 = await t.services.channels.create(owner.workspaceId, {
    provider: 'webhook',
    name: 'A2',
    config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
  });
  const limited = await createTenant(t, { workspaceId: owner.workspaceId, channelIds: [owner.channelId] });
  return { owner, a1: owner.channelId, a2: a2.id, limited };
}

describe('access checks that a replay or an edit must not skip', () => {
  it('a replayed Idempotency-Key answers only a caller that may make the request: a key limited to A1 gets 403 for A2', async () => {
    const { owner, a2, limited } = await twoChannels();
    const body = postBody(a2, { date: '2026-05-05T10:00:00Z' });
    const first = await createPosts(t, owner, body, { 'idempotency-key': 'k-a2' });
    expect(first.statusCode).toBe(200);

    const replay = await createPosts(t, limited, body, { 'idempotency-key': 'k-a2' });
    expect(replay.statusCode).toBe(403);
    expect(replay.json()).toMatchObject({ code: 'channel_forbidden' });
    expect(replay.body).not.toContain(first.json()[0].postId);

    // Scopes and role too: a draft-only key and a contributor replaying a `schedule` request.
    const drafter = await createTenant(t, { workspaceId: owner.workspaceId, scopes: ['posts:draft', 'posts:read'] });
    const contributor = await createTenant(t, { workspaceId: owner.workspaceId, role: 'contributor' });
    for (const caller of [drafter, contributor]) {
      const res = await createPosts(t, caller, body, { 'idempotency-key': 'k-a2' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:publish' });
    }
    // The owner still gets the first answer.
    const again = await createPosts(t, owner, body, { 'idempotency-key': 'k-a2' });
    expect(again.json()).toEqual(first.json());
  });

  it('a contributor cannot take a scheduled post out of the schedule by editing its group as a draft', async () => {
    const owner = await webhookTenant(t, HOOK);
    const [created] = await createOk(t, owner, postBody(owner.channelId, { date: '2026-05-06T10:00:00Z' }));
    const { group } = await getPost(t, owner, created!.postId);
    const contributor = await createTenant(t, { workspaceId: owner.workspaceId, role: 'contributor' });

    const status = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${created!.postId}/status`,
      key: contributor.key,
      payload: { status: 'draft' },
    });
    expect(status.statusCode).toBe(403);
    const edit = await createPosts(t, contributor, postBody(owner.channelId, { type: 'draft', group, date: '2026-05-06T10:00:00Z' }));
    expect(edit.statusCode).toBe(403);
    expect(edit.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:publish', role: 'contributor' });
    expect((await getPost(t, owner, created!.postId)).state).toBe('QUEUE');

    // A contributor may still edit a draft group as a draft.
    const [draft] = await createOk(t, owner, postBody(owner.channelId, { type: 'draft', date: '2026-05-07T10:00:00Z' }));
    const draftGroup = (await getPost(t, owner, draft!.postId)).group;
    const ok = await createPosts(
      t,
      contributor,
      postBody(owner.channelId, { type: 'draft', group: draftGroup, date: '2026-05-08T10:00:00Z' }),
    );
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('a channel-limited key cannot join a group it cannot see: the same 404 as DELETE /posts/group/:group', async () => {
    const { owner, a1, a2, limited } = await twoChannels();
    const [hidden] = await createOk(t, owner, postBody(a2, { type: 'draft', date: '2026-05-09T10:00:00Z' }));
    const { group } = await getPost(t, owner, hidden!.postId);

    const del = await t.request({ method: 'DELETE', url: `/public/v1/posts/group/${group}`, key: limited.key });
    expect(del.statusCode).toBe(404);
    const join = await createPosts(t, limited, postBody(a1, { type: 'draft', group, date: '2026-05-09T10:00:00Z' }));
    expect(join.statusCode).toBe(404);
    expect(join.json().msg).toBe(del.json().msg);
    const missing = await createPosts(t, limited, postBody(a1, { type: 'draft', group: 'no-such-group', date: '2026-05-09T10:00:00Z' }));
    expect(missing.statusCode).toBe(404);
    expect(missing.json().msg).toBe(`No group no-such-group in this workspace.`);
    expect(join.json().msg).toBe(`No group ${group} in this workspace.`);

    const rows = await t.runtime.db
      .selectFrom('posts')
      .select('id')
      .where('group_id', '=', group)
      .where('deleted_at', 'is', null)
      .execute();
    expect(rows.map((r) => r.id)).toEqual([hidden!.postId]);
  });
});
