import type { Executor } from '../db/database.ts';
import type { PostingSchedulesTable } from './schedules.table.ts';

/** The workspace's default schedule's row key. */
export const WORKSPACE_DEFAULT = '';

/** The schedules of a channel and of its workspace's default, whichever exist. */
export function findSchedules(db: Executor, workspaceId: string, channelId: string): Promise<PostingSchedulesTable[]> {
  return db
    .selectFrom('posting_schedules')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('channel_id', 'in', [channelId, WORKSPACE_DEFAULT])
    .execute();
}

export async function upsertSchedule(db: Executor, row: PostingSchedulesTable): Promise<void> {
  await db
    .insertInto('posting_schedules')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'channel_id']).doUpdateSet({ time_zone: row.time_zone, slots: row.slots, updated_at: row.updated_at }),
    )
    .execute();
}

export async function deleteSchedule(db: Executor, workspaceId: string, channelId: string): Promise<void> {
  await db.deleteFrom('posting_schedules').where('workspace_id', '=', workspaceId).where('channel_id', '=', channelId).execute();
}
