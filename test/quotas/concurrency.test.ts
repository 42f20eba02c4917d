import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { fileBody, png } from '../helpers/media-files.ts';
import { createPosts, postBody, webhookTenant } from '../helpers/posts.ts';

// Plan limits hold when the requests that would cross them arrive together.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

describe('plan limits under concurrency', () => {
  it('20 concurrent POST /posts against a quota of 5 posts a month: exactly 5 are created', async () => {
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    await t.services.workspaces.setPlan(tenant.workspaceId, { postsPerMonth: 5 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => createPosts(t, tenant, postBody(tenant.channelId, { type: 'draft' }))),
    );
    expect(answers.map((res) => res.statusCode).sort()).toEqual([...Array(5).fill(200), ...Array(15).fill(402)]);
    const { n } = await t.runtime.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', tenant.workspaceId)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(5);
  });

  it('20 concurrent channel creations against a plan of 5 channels: exactly 5 are created', async () => {
    const tenant = await createTenant(t);
    await t.services.workspaces.setPlan(tenant.workspaceId, { channels: 5 });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        t.services.channels.create(tenant.workspaceId, {
          provider: 'webhook',
          name: `C${i}`,
          config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const refused of results.filter((r) => r.status === 'rejected'))
      expect((refused.reason as { statusCode: number }).statusCode).toBe(402);
    expect(await t.services.channels.list(tenant.workspaceId)).toHaveLength(5);
  });
});

describe('upload-link limits under concurrency', () => {
  // Every upload waits after its admission until all of the round have been admitted, so each
  // one was admitted on the same empty link: only the final count can keep the limit.
  let round = 0;
  let arrived = 0;
  let release: () => void = () => {};
  let allAdmitted = Promise.resolve();
  function startRound(n: number): void {
    round = n;
    arrived = 0;
    allAdmitted = new Promise((resolve) => (release = resolve));
  }
  const hooks = {
    admitted: async () => {
      if (round === 0) return;
      arrived += 1;
      if (arrived === round) release();
      await allAdmitted;
    },
  };

  async function linkPage(app: TestApp): Promise<{ id: string; page: string }> {
    const tenant = await createTenant(app);
    const res = await app.request({ method: 'POST', url: '/public/v1/upload-link', key: tenant.key });
    expect(res.statusCode, res.body).toBe(201);
    return { id: res.json().id, page: new URL(res.json().url).pathname };
  }

  function distinctPngs(n: number): Buffer[] {
    return Array.from({ length: n }, (_, i) => png(4, 4, [i * 20, 200 - i * 20, 77]));
  }

  async function uploadRound(app: TestApp, link: { page: string }, files: Buffer[]) {
    startRound(files.length);
    try {
      return await Promise.all(
        files.map((data, i) => app.request({ method: 'POST', url: `${link.page}/files`, ...fileBody(data, `${i}.png`) })),
      );
    } finally {
      round = 0;
    }
  }

  async function recorded(app: TestApp, linkId: string) {
    return app.runtime.db
      .selectFrom('upload_link_files')
      .innerJoin('media', 'media.id', 'upload_link_files.media_id')
      .select(['media.id', 'media.size'])
      .where('upload_link_files.upload_link_id', '=', linkId)
      .execute();
  }

  it('8 uploads admitted together through a link of 3 files: exactly 3 are recorded, the others 403 link_full', async () => {
    const app = await createTestApp({ uploadLinks: { limits: { maxFiles: 3 }, hooks } });
    const link = await linkPage(app);
    const answers = await uploadRound(app, link, distinctPngs(8));
    expect(answers.map((res) => res.statusCode).sort()).toEqual([...Array(3).fill(200), ...Array(5).fill(403)]);
    for (const res of answers.filter((r) => r.statusCode === 403)) {
      expect(res.json()).toEqual({ code: 'link_full', msg: 'This link has taken the most files it accepts (3). Ask for a new link.' });
    }
    expect(await recorded(app, link.id)).toHaveLength(3);
    // A refused file never reached the library.
    const { n } = await app.runtime.db
      .selectFrom('media')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(3);
    // The same file again through the full link is refused; the count stays.
    expect((await uploadRound(app, link, distinctPngs(1)))[0]!.statusCode).toBe(403);
  });

  it("8 uploads admitted together through a link of 2.5 files' worth of bytes: exactly 2 are recorded", async () => {
    // Eight different files of one size (random padding), so the verdict does not depend on which ones win;
    // large enough that a request's declared size (file and form overhead) is admitted on the empty link.
    const files = Array.from({ length: 8 }, () => png(4, 4, [1, 2, 3], 4000));
    const size = files[0]!.length;
    const app = await createTestApp({ uploadLinks: { limits: { maxBytes: Math.floor(size * 2.5) }, hooks } });
    const link = await linkPage(app);
    const answers = await uploadRound(app, link, files);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([...Array(2).fill(200), ...Array(6).fill(403)]);
    const rows = await recorded(app, link.id);
    expect(rows).toHaveLength(2);
    const usage = await app.runtime.db
      .selectFrom('upload_links')
      .select(['files_used', 'bytes_used'])
      .where('id', '=', link.id)
      .executeTakeFirstOrThrow();
    expect({ files: Number(usage.files_used), bytes: Number(usage.bytes_used) }).toEqual({
      files: 2,
      bytes: rows.reduce((sum, r) => sum + Number(r.size), 0),
    });
  });
});
