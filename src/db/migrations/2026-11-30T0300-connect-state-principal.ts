import type { Kysely } from 'kysely';

/**
 * Who started a browser sign-in, kept with its state as a running import keeps it (the
 * principal without its secret: an API key, an app's access, or a member's browser session), so
 * that the callback asks whether that credential still stands, whatever its kind. A state made
 * before this column (at most 15 minutes old) has none: its callback asks to start again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('connect_states').addColumn('principal', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('connect_states').dropColumn('principal').execute();
}
