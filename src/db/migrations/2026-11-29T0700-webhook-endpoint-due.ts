import type { Kysely } from 'kysely';

/**
 * An endpoint's due deliveries, earliest first: the delivery worker claims them endpoint by
 * endpoint, and without this index each claim read every pending delivery of every endpoint.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_endpoint_due_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'state', 'next_attempt_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_endpoint_due_idx').execute();
}
