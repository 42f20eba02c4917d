import type { Kysely } from 'kysely';

/**
 * Webhook retention: the purge removes an event with its deliveries (and their attempts, by
 * cascade) once every delivery has been settled for the retention period. Both that check and the
 * cascade look deliveries up by event, which no index served.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').columns(['event_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_idx').execute();
}
