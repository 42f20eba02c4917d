import type { Executor } from '../db/database.ts';
import type { ShortLinksTable } from './short-links.table.ts';

export function findCodeFor(db: Executor, postId: string, url: string) {
  return db.selectFrom('short_links').select('code').where('post_id', '=', postId).where('url', '=', url).executeTakeFirst();
}

export function insertShortLink(db: Executor, row: ShortLinksTable) {
  return db.insertInto('short_links').values(row).execute();
}

export function findShortLink(db: Executor, code: string) {
  return db.selectFrom('short_links').select(['url', 'clicks']).where('code', '=', code).executeTakeFirst();
}

export function countClick(db: Executor, code: string) {
  return db
    .updateTable('short_links')
    .set((eb) => ({ clicks: eb('clicks', '+', 1) }))
    .where('code', '=', code)
    .execute();
}
