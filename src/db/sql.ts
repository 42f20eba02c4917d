import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresAdapter,
  PostgresIntrospector,
  sql,
  type AliasedRawBuilder,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type TableMetadata,
  type Transaction,
} from 'kysely';
import type { Database } from './database.ts';

// Every piece of SQL that only one dialect understands lives in this file, except the settings
// of a connection as it opens (SQLite's pragmas, PostgreSQL's search path: connection.ts).

/** True when `error` is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when the database could not be reached at all (as opposed to rejecting a query). */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(e.code))
    return true;
  return /Connection terminated|timeout exceeded when trying to connect/i.test(e.message ?? '');
}

/** Whether `db` (or a transaction on it) runs on PostgreSQL. */
function onPostgres(db: Kysely<Database> | Transaction<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The schema unqualified names resolve to on PostgreSQL (undefined on SQLite). The migrator
 * needs it, or it may mistake another schema's migration tables for this one's.
 */
export async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  if (!onPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}

/**
 * One JSON object built in SQL from `[key, expression]` pairs, for a query on `db`: one
 * subquery can then return a whole row alongside another table's. SQLite's `json_object`
 * gives text, PostgreSQL's `json_build_object` a value the driver parses; `readJsonObject` takes either.
 */
export function jsonObject(
  db: Kysely<Database> | Transaction<Database>,
  entries: ReadonlyArray<readonly [string, Expression<unknown>]>,
): RawBuilder<unknown> {
  const fn = onPostgres(db) ? 'json_build_object' : 'json_object';
  return sql`${sql.raw(fn)}(${sql.join(entries.flatMap(([key, value]) => [sql.lit(key), value]))})`;
}

/** A value built by `jsonObject`, as an object (null for SQL null). */
export function readJsonObject<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/**
 * Locks the rows of table `of` that a subquery selects, for the statement's transaction, skipping rows another
 * transaction holds (PostgreSQL's `for update skip locked`): workers claiming due work at the
 * same time take different rows instead of queueing behind one another's locks. Nothing on
 * SQLite, whose writing transactions run one at a time.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any select query, whatever its tables and columns
export function skippingLockedRows<Query extends SelectQueryBuilder<any, any, any>>(
  db: Kysely<Database> | Transaction<Database>,
  query: Query,
  of: string,
): Query {
  return onPostgres(db) ? (query.forUpdate(of).skipLocked() as Query) : query;
}

/**
 * `value in (subquery)`, the subquery run once first: PostgreSQL then looks the rows up by
 * `value`'s index (`= any(array(…))`), whatever it estimates the subquery returns (an estimate
 * of one row makes it scan the outer table instead). SQLite runs `in (subquery)` that way already.
 */
export function inSubquery(
  db: Kysely<Database> | Transaction<Database>,
  value: Expression<unknown>,
  subquery: Expression<unknown>,
): RawBuilder<boolean> {
  return onPostgres(db) ? sql<boolean>`${value} = any(array(${subquery}))` : sql<boolean>`${value} in (${subquery})`;
}

/**
 * `value in (…)` over the strings of a JSON array bound as one text parameter (`list`): a list of
 * any length in a statement compiled once (see `precompiled`). On PostgreSQL as `= any(array(…))`,
 * so that even the plan it prepares for any list looks the rows up by `value`'s index.
 */
export function inJsonList(db: Kysely<Database> | Transaction<Database>, value: Expression<unknown>, list: string): RawBuilder<boolean> {
  return onPostgres(db)
    ? sql<boolean>`${value} = any(array(select json_array_elements_text(cast(${list} as json))))`
    : sql<boolean>`${value} in (select value from json_each(${list}))`;
}

/** The SQL type of a column of `jsonRecords`. */
export type JsonRecordColumn = 'text' | 'integer';

/**
 * A table of rows read from a JSON array of objects bound as one text parameter (`list`), with
 * the given columns (the objects' keys of the same names), aliased `alias`: a batch of rows of
 * any size in a statement compiled once (see `precompiled`), to join with, or update from.
 * PostgreSQL reads it with `json_to_recordset`, SQLite with `json_each`.
 */
export function jsonRecords<Row extends Record<string, unknown>, Alias extends string>(
  db: Kysely<Database> | Transaction<Database>,
  list: string,
  columns: Readonly<Record<keyof Row & string, JsonRecordColumn>>,
  alias: Alias,
): AliasedRawBuilder<Row, Alias> {
  const names = Object.keys(columns) as Array<keyof Row & string>;
  if (onPostgres(db)) {
    const definition = sql.join(names.map((name) => sql`${sql.id(name)} ${sql.raw(columns[name] === 'integer' ? 'integer' : 'text')}`));
    return sql<Row>`(select * from json_to_recordset(cast(${list} as json)) as r(${definition}))`.as(alias);
  }
  const fields = sql.join(names.map((name) => sql`value ->> ${sql.lit(name)} as ${sql.id(name)}`));
  return sql<Row>`(select ${fields} from json_each(${list}))`.as(alias);
}

/**
 * Bounds how long the rest of transaction `trx` waits for a row lock, on PostgreSQL (SQLite's
 * transactions run one at a time: nothing to wait for). Past it the statement fails with 55P03.
 */
export async function limitLockWait(trx: Transaction<Database>, ms: number): Promise<void> {
  if (!onPostgres(trx)) return;
  await sql.raw(`set local lock_timeout = ${Math.max(1, Math.round(ms))}`).execute(trx);
}

/**
 * Locks one webhook event's row for the rest of transaction `trx` and says whether it still
 * exists: a purge (which deletes events) then waits for the transaction, and decides again on what
 * it committed. PostgreSQL locks the row (`FOR UPDATE`); SQLite's transactions run one at a time.
 */
export async function lockWebhookEvent(trx: Transaction<Database>, eventId: string): Promise<boolean> {
  const query = trx.selectFrom('webhook_events').select('id').where('id', '=', eventId);
  return (await (onPostgres(trx) ? query.forUpdate() : query).executeTakeFirst()) !== undefined;
}

/**
 * Makes the rest of transaction `trx` exclusive for one webhook endpoint, so a limit on its
 * deliveries checked by counting holds until the claim commits (as `lockWorkspace` does for a workspace).
 */
export async function lockWebhookEndpoint(trx: Transaction<Database>, endpointId: string): Promise<void> {
  if (!onPostgres(trx)) return;
  await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', endpointId).forUpdate().execute();
}

/**
 * Makes the rest of transaction `trx` exclusive for one workspace, so a limit checked by
 * counting holds until the insert commits. PostgreSQL locks the workspace row (`FOR UPDATE`);
 * SQLite needs nothing: its transactions run one at a time on the single connection.
 */
export async function lockWorkspace(trx: Transaction<Database>, workspaceId: string): Promise<void> {
  if (!onPostgres(trx)) return;
  await trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
}

type IntrospectedColumn = {
  table: string;
  table_type: string;
  schema: string;
  column: string;
  not_null: boolean;
  has_default: boolean;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
};

/**
 * The tables and views of the schema Herald's names resolve to (`current_schema()`), as Kysely's
 * own PostgreSQL introspector describes them. Its migrator asks whether its tables exist before
 * every run. Kysely's introspector reads every schema of the database and resolves each one's
 * name while it reads: a schema that someone else sharing the database drops at that moment (another
 * deployment, another test file) fails Herald's migration with "schema … does not exist", and
 * the other schemas' columns are read for nothing.
 */
export class OwnSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  getSchemas() {
    return new PostgresIntrospector(this.#db).getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const internal = options.withInternalKyselyTables ? [] : [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE];
    const { rows } = await sql<IntrospectedColumn>`
      select c.relname as "table", c.relkind as table_type, ns.nspname as "schema", a.attname as "column",
        a.attnotnull as not_null, a.atthasdef as has_default, typ.typname as "type", dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        pg_get_serial_sequence(format('%I.%I', ns.nspname, c.relname), a.attname) as auto_incrementing
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace dtns on dtns.oid = typ.typnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p') and a.attnum >= 0 and not a.attisdropped
        ${internal.length > 0 ? sql`and c.relname not in (${sql.join(internal)})` : sql``}
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, { name: string; schema: string; isView: boolean; columns: TableMetadata['columns'][number][] }>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.table_type === 'v', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing !== null,
        comment: row.column_description ?? undefined,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}
