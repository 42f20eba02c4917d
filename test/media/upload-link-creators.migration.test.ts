import { Migrator } from 'kysely';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKysely } from '../../src/db/connection.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { currentSchema } from '../../src/db/sql.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/backend.ts';
import { fileBody, png } from '../helpers/media-files.ts';

const BEFORE = '2026-11-23T1800-channels-deleted';
const NOW = '2026-06-10T08:00:00.000Z';

describe('migration 2026-11-24T0200-upload-link-creators', () => {
  it("keeps every existing link working, with its files and media, now recorded with the key's user", async () => {
    const database = await freshDatabase();
    const db = await createKysely(database.target);
    const schema = await currentSchema(db);
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
      ...(schema && { migrationTableSchema: schema }),
    });
    const older = await migrator.migrateTo(BEFORE);
    expect(older.error).toBeUndefined();

    const at = NOW;
    const token = 'A1'.repeat(21) + 'b';
    await db.insertInto('users').values({ id: 'u1', email: 'old@example.test', name: null, created_at: at }).execute();
    await db
      .insertInto('workspaces')
      .values({ id: 'w1', name: 'Old', plan_name: 'default', plan_api_access: 1, created_at: at } as never)
      .execute();
    await db.insertInto('memberships').values({ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: at }).execute();
    await db
      .insertInto('api_keys')
      .values({
        id: 'k1',
        user_id: 'u1',
        kind: 'rest',
        name: 'old key',
        secret_hash: 'x',
        scopes: JSON.stringify(['media:write']),
        channel_ids: null,
        workspace_id: null,
        created_at: at,
      } as never)
      .execute();
    await db
      .insertInto('upload_links')
      .values({
        id: 'l1',
        workspace_id: 'w1',
        token_hash: createHash('sha256').update(token).digest('hex'),
        created_by_key_id: 'k1',
        created_at: at,
        expires_at: '2026-06-10T10:00:00.000Z',
        files_used: 1,
        bytes_used: 10,
      } as never)
      .execute();
    await db
      .insertInto('media')
      .values({
        id: 'm1',
        workspace_id: 'w1',
        storage_key: 'old/m1.png',
        name: 'm1.png',
        type: 'image',
        mime_type: 'image/png',
        size: 10,
        sha256: 'old',
        width: 1,
        height: 1,
        upload_link_id: 'l1',
        created_at: at,
      })
      .execute();
    await db.insertInto('upload_link_files').values({ upload_link_id: 'l1', media_id: 'm1', name: 'sent.png', created_at: at }).execute();
    await db.destroy();

    const t = await createTestApp({ database, clock: new ManualClock(NOW) });
    const link = await t.runtime.db.selectFrom('upload_links').selectAll().where('id', '=', 'l1').executeTakeFirstOrThrow();
    expect(link).toMatchObject({ created_by_key_id: 'k1', created_by_grant_id: null, created_by_user_id: 'u1', files_used: 1 });
    expect(await t.runtime.db.selectFrom('upload_link_files').selectAll().execute()).toEqual([
      { upload_link_id: 'l1', media_id: 'm1', name: 'sent.png', created_at: at },
    ]);
    expect(await t.runtime.db.selectFrom('media').select('upload_link_id').where('id', '=', 'm1').executeTakeFirstOrThrow()).toEqual({
      upload_link_id: 'l1',
    });

    // The link still takes files through its page, and still stops with its key.
    const res = await t.request({ method: 'POST', url: `/u/${token}/files`, ...fileBody(png(2, 2, [1, 2, 3]), 'after.png') });
    expect(res.statusCode, res.body).toBe(200);
    expect(
      (await t.runtime.db.selectFrom('upload_link_files').select('name').where('upload_link_id', '=', 'l1').orderBy('name').execute()).map(
        (r) => r.name,
      ),
    ).toEqual(['after.png', 'sent.png']);
    await t.services.apiKeys.revoke('k1');
    expect((await t.request({ method: 'GET', url: `/u/${token}` })).statusCode).toBe(410);

    // Exactly one creator: the database refuses a link with both or neither.
    const row = { workspace_id: 'w1', created_by_user_id: 'u1', created_at: at, expires_at: at, files_used: 0, bytes_used: 0 };
    await expect(
      t.runtime.db
        .insertInto('upload_links')
        .values({ ...row, id: 'both', token_hash: 'h-both', created_by_key_id: 'k1', created_by_grant_id: 'g1' })
        .execute(),
    ).rejects.toThrow(/check/i);
    await expect(
      t.runtime.db
        .insertInto('upload_links')
        .values({ ...row, id: 'neither', token_hash: 'h-neither', created_by_key_id: null, created_by_grant_id: null })
        .execute(),
    ).rejects.toThrow(/check/i);
    // Deleting a link still clears it from its media and drops its file list (the references survived the rebuild).
    await t.runtime.db.deleteFrom('upload_links').where('id', '=', 'l1').execute();
    expect(await t.runtime.db.selectFrom('upload_link_files').selectAll().where('upload_link_id', '=', 'l1').execute()).toEqual([]);
    expect(await t.runtime.db.selectFrom('media').select('upload_link_id').where('id', '=', 'm1').executeTakeFirstOrThrow()).toEqual({
      upload_link_id: null,
    });
  });
});
