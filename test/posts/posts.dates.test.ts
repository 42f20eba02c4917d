import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, createPosts, postBody, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
let t: TestApp;
const HOOK = 'https://hooks.example.test/in';

beforeAll(async () => {
  t = await createTestApp({ clock });
});

describe('dates', () => {
  it('a date without a zone is refused with a message that says why and how to fix it', async () => {
    const tenant = await webhookTenant(t, HOOK);
    for (const type of ['draft', 'schedule', 'now'] as const) {
      const res = await createPosts(t, tenant, postBody(tenant.channelId, { type, date: '2026-11-23T10:00:00' }));
      expect(res.statusCode, type).toBe(400);
      const [message] = res.json().message as string[];
      expect(message).toMatch(/^body\.date: "2026-11-23T10:00:00" has no time zone/);
      expect(message).toMatch(/add "Z" for UTC \(2026-11-23T10:00:00Z\) or an offset/);
    }
    const dateOnly = await createPosts(t, tenant, postBody(tenant.channelId, { date: '2026-11-23' }));
    expect(dateOnly.json().message).toEqual([expect.stringMatching(/date without a time.*2026-11-23T09:30:00Z/)]);
    const nonsense = await createPosts(t, tenant, postBody(tenant.channelId, { date: 'tomorrow' }));
    expect(nonsense.json().message).toEqual([expect.stringMatching(/^body\.date: expected an ISO 8601 date-time with "Z" or an offset/)]);
  });

  it('an offset that pushes the instant past year 9999 or before year 0 is a 400, for every type and in the calendar query', async () => {
    const tenant = await webhookTenant(t, HOOK);
    for (const date of ['9999-12-31T23:59:59-14:00', '9999-12-31T23:59:59-01:00', '0000-01-01T00:00:00+01:00']) {
      for (const type of ['draft', 'schedule'] as const) {
        const res = await createPosts(t, tenant, postBody(tenant.channelId, { type, date }));
        expect(res.statusCode, `${type} ${date}`).toBe(400);
        expect(res.json().message, date).toEqual([expect.stringMatching(/^body\.date: .*outside the years 0000–9999/)]);
      }
      const listed = await t.request({
        method: 'GET',
        url: `/public/v1/posts?startDate=${encodeURIComponent(date)}&endDate=2026-06-01T00:00:00Z`,
        key: tenant.key,
      });
      expect(listed.statusCode, date).toBe(400);
    }
    const rows = await t.runtime.db.selectFrom('posts').select('publish_at').where('workspace_id', '=', tenant.workspaceId).execute();
    expect(rows).toEqual([]);
    // The edges themselves are fine (a draft, so no horizon applies).
    await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '9999-12-31T23:59:59Z' }));
    await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '0000-01-01T00:00:00Z' }));
  });

  it('a schedule date is at most 10 years ahead, through POST /posts and through the status route', async () => {
    const tenant = await webhookTenant(t, HOOK);
    await createOk(t, tenant, postBody(tenant.channelId, { date: '2036-04-30T12:00:00Z' }));
    const far = await createPosts(t, tenant, postBody(tenant.channelId, { date: '2036-05-01T12:00:01Z' }));
    expect(far.statusCode).toBe(400);
    expect(far.json()).toMatchObject({ code: 'date_too_far', msg: expect.stringMatching(/more than 10 years ahead/) });

    const [draft] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2040-01-01T00:00:00Z' }));
    const scheduled = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${draft!.postId}/status`,
      key: tenant.key,
      payload: { status: 'schedule' },
    });
    expect(scheduled.statusCode).toBe(400);
    expect(scheduled.json().code).toBe('date_too_far');
  });
});
