import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import type Pg from 'pg';
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  SqliteDialect,
  sql,
  type AliasedRawBuilder,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Expression,
  type LogEvent,
  type RawBuilder,
  type SelectQueryBuilder,
  type TableMetadata,
  type Transaction,
} from 'kysely';
import type { Database } from './database.ts';

/** Every piece of SQL that only one dialect understands lives in this file. */
export type DatabaseTarget =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

/** Sees every statement run (tests count the work a request does with it). */
export type QueryObserver = (query: { sql: string; parameters: readonly unknown[] }) => void;

/**
 * Both drivers are CommonJS: required directly, not imported, they load without Node's
 * ES-module wrapper of a CommonJS package (which parses its entry file once more to list its names).
 */
const require = createRequire(import.meta.url);

/** Opens the database; only the driver of the configured dialect is loaded. */
export async function createKysely(target: DatabaseTarget, options: { onQuery?: QueryObserver | undefined } = {}): Promise<Kysely<Database>> {
  const onQuery = options.onQuery;
  const log = onQuery ? (event: LogEvent) => onQuery({ sql: event.query.sql, parameters: event.query.parameters }) : undefined;
  if (target.kind === 'sqlite') {
    fs.mkdirSync(path.dirname(target.file), { recursive: true });
    const Sqlite = require('better-sqlite3') as typeof SqliteDatabase;
    const sqlite = new Sqlite(target.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // A second, read-only connection for the reads every request makes (see `sqliteReader`).
    const reader = target.file === ':memory:' ? null : new Sqlite(target.file, { readonly: true });
    reader?.pragma('busy_timeout = 5000');
    const commits = reader ? watchCommits(sqlite, target.file) : null;
    const statements = withStatementCache(sqlite, reader, commits);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }), ...(log && { log }) });
    if (reader) {
      const cache = statementCache(reader);
      readers.set(db, {
        all: (query, parameters) => {
          onQuery?.({ sql: query, parameters });
          return cache(query).all(parameters) as unknown[];
        },
        first: (query, parameters) => {
          onQuery?.({ sql: query, parameters });
          return cache(query).get(parameters);
        },
        commitMark: commits ? commits.mark : () => undefined,
        committedSince: commits ? commits.changedSince : () => true,
      });
    }
    return db;
  }
  const pg = require('pg') as typeof Pg;
  const pool = new pg.Pool({
    Client: preparingClient(pg),
    connectionString: target.url,
    max: target.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  // (A client in use is covered by its own listener, see `preparingClient`.)
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }), ...(log && { log }) });
}

/** PostgreSQL, introspected in Herald's own schema only (see `OwnSchemaIntrospector`). */
class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
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
class OwnSchemaIntrospector implements DatabaseIntrospector {
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

/**
 * SQL texts that run often with different parameters (the statements compiled once, see
 * `precompiled`), by the name PostgreSQL prepares them under; bounded, since each name is kept
 * by every connection of the pool.
 */
const preparable = new Map<string, string>();
const PREPARABLE_MAX = 200;
/** Bumped when PostgreSQL refuses a prepared statement whose result columns changed (a migration ran meanwhile). */
let preparedGeneration = 0;

/**
 * Marks a statement's SQL text to be prepared once per PostgreSQL connection and then only
 * bound and executed: PostgreSQL skips parsing and, after a few runs, planning it again. A
 * no-op on SQLite (its statements are kept prepared by text anyway) and past the bound.
 */
export function markPreparable(sql: string): void {
  if (preparable.has(sql) || preparable.size >= PREPARABLE_MAX) return;
  preparable.set(sql, `herald_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`);
}

/**
 * The `pg` client class of the pool: a query whose text is marked preparable runs as a named
 * (prepared) statement, and a connection lost while checked out does not crash the process.
 */
function preparingClient(pg: typeof Pg): typeof Pg.Client {
  return class PreparingClient extends pg.Client {
    constructor(...args: ConstructorParameters<typeof Pg.Client>) {
      super(...args);
      // `pg` reports a connection that ends while checked out of the pool (a restart, an ended
      // session) as an 'error' event, and the pool listens only while the client is idle: unheard,
      // it is an uncaught exception. The queries on it have already failed with that error, and
      // the pool drops the client when it is released (it is no longer queryable).
      this.on('error', () => {});
    }

    override query(...args: unknown[]): never {
      const [text, values] = args;
      const name = typeof text === 'string' && Array.isArray(values) && values.length > 0 ? preparable.get(text) : undefined;
      const query = super.query as (...a: unknown[]) => never;
      if (name === undefined || args.length > 2) return query.apply(this, args);
      const generation = preparedGeneration;
      return (query.call(this, { name: `${name}_${generation}`, text, values }) as Promise<unknown>).catch((error: unknown) => {
        // After a migration changed the columns a prepared statement returns, PostgreSQL refuses
        // it on every connection that prepared it: the next run prepares it afresh under a new name.
        if (isChangedPlanError(error) && generation === preparedGeneration) preparedGeneration += 1;
        throw error;
      }) as never;
    }
  } as unknown as typeof Pg.Client;
}

function isChangedPlanError(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}

/** Prepared statements kept by SQL text (a bounded, most-recent set). */
function statementCache(sqlite: SqliteDatabase.Database, size = 500) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return (query: string) => {
    let statement = cache.get(query);
    if (statement) {
      cache.delete(query);
    } else {
      statement = sqlite.prepare(query);
      if (cache.size >= size) cache.delete(cache.keys().next().value!);
    }
    cache.set(query, statement);
    return statement;
  };
}

/**
 * Kysely prepares every query afresh; preparing costs about as much as running a small
 * query on SQLite, so prepared statements are kept by SQL text.
 * Reuse is safe: better-sqlite3 runs each statement to completion synchronously.
 */
function withStatementCache(sqlite: SqliteDatabase.Database, reader: SqliteDatabase.Database | null, commits: CommitWatch | null) {
  return {
    close: () => {
      reader?.close();
      sqlite.close();
      // Only now that SQLite's own descriptors are closed (see watchCommits).
      commits?.close();
    },
    prepare: statementCache(sqlite),
  };
}

/** Runs a read on SQLite's read-only connection, synchronously: all its rows, or the first (undefined without one). */
export type SqliteReader = {
  all(query: string, parameters: readonly unknown[]): unknown[];
  /** Stops at the first row: no array, and no further step of the statement. */
  first(query: string, parameters: readonly unknown[]): unknown;
  /**
   * Where the database stands now, to be passed to `committedSince` later; undefined when it
   * cannot be told (a commit is being published at this instant, or the WAL index is unreadable).
   * Take it before the reads it vouches for.
   */
  commitMark(): Buffer | undefined;
  /**
   * Whether any connection, of this process or another, may have committed since `mark` was
   * taken: false only when certainly nothing was. Costs one small file read, no transaction.
   */
  committedSince(mark: Buffer): boolean;
};

type CommitWatch = { mark(): Buffer | undefined; changedSince(mark: Buffer): boolean; close(): void };

/** The WAL-index header: two copies of 48 bytes at the start of the `-shm` file (SQLite's WAL file format). */
const WAL_INDEX_HEADER = 48;

/**
 * Tells whether anything was committed to a SQLite database in WAL mode, by any process,
 * without opening a read transaction (two file locks and the statement machinery, several
 * times the cost). Every commit rewrites the WAL-index header at the start of the shared-memory
 * file `<database>-shm` (its change counter `iChange` moves with every transaction, and its
 * salts with every restart of the log); a writer publishes a commit by writing the second copy
 * of the header and then the first, and readers trust the header only when both copies agree.
 * A commit is visible to SQLite's readers from the moment it is in that header, so a header
 * read equal to an earlier one proves that no commit became visible in between.
 *
 * The file is read through a read-only descriptor of our own. POSIX file locks belong to the
 * process, and closing any descriptor of a file drops all of the process's locks on it, SQLite's
 * included (SQLite's documentation warns against exactly that): this descriptor is therefore
 * opened once and closed only after SQLite's connections are (see `withStatementCache`). Null
 * when the file cannot be opened: callers then read the database every time.
 */
function watchCommits(sqlite: SqliteDatabase.Database, file: string): CommitWatch | null {
  // A first read makes SQLite open the log and create the shared-memory file if it has not yet.
  sqlite.prepare('select count(*) from sqlite_master').get();
  let fd: number;
  try {
    fd = fs.openSync(`${file}-shm`, 'r');
  } catch {
    return null;
  }
  const header = Buffer.alloc(2 * WAL_INDEX_HEADER);
  /** Reads both copies; false when they differ (a writer is between them) or the file is short. */
  const read = () => fs.readSync(fd, header, 0, header.length, 0) === header.length && header.compare(header, 0, WAL_INDEX_HEADER, WAL_INDEX_HEADER) === 0;
  return {
    mark: () => (read() ? Buffer.from(header.subarray(0, WAL_INDEX_HEADER)) : undefined),
    changedSince: (mark) => !read() || header.compare(mark, 0, WAL_INDEX_HEADER, 0, WAL_INDEX_HEADER) !== 0,
    close: () => fs.closeSync(fd),
  };
}
const readers = new WeakMap<Kysely<Database>, SqliteReader>();

/**
 * The read-only connection of a SQLite database, for reads outside any transaction; undefined
 * on PostgreSQL, in a transaction, or for a database in memory. Kysely's SQLite driver has one
 * connection, which a request's transaction holds across its awaits, so every other query
 * waits for it, through a chain of promises. The reader does not: SQLite in WAL mode gives each
 * of its statements the last committed state, never a transaction's uncommitted writes, and
 * better-sqlite3 runs the statement to completion before returning. Statements run here are
 * reported to the query observer like the others.
 */
export function sqliteReader(db: Kysely<Database> | Transaction<Database>): SqliteReader | undefined {
  return db.isTransaction ? undefined : readers.get(db as Kysely<Database>);
}

/** True when `db` reads in this process (SQLite's read-only connection): a statement costs microseconds, not a round trip. */
export function readsInProcess(db: Kysely<Database> | Transaction<Database>): boolean {
  return sqliteReader(db) !== undefined;
}

/** True when `error` is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when the database could not be reached at all (as opposed to rejecting a query). */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  if (!e) return false;
  if (e.code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(e.code)) return true;
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
export function jsonObject(db: Kysely<Database> | Transaction<Database>, entries: ReadonlyArray<readonly [string, Expression<unknown>]>): RawBuilder<unknown> {
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
export function skippingLockedRows<Query extends SelectQueryBuilder<any, any, any>>(db: Kysely<Database> | Transaction<Database>, query: Query, of: string): Query {
  return onPostgres(db) ? (query.forUpdate(of).skipLocked() as Query) : query;
}

/**
 * `value in (subquery)`, the subquery run once first: PostgreSQL then looks the rows up by
 * `value`'s index (`= any(array(…))`), whatever it estimates the subquery returns (an estimate
 * of one row makes it scan the outer table instead). SQLite runs `in (subquery)` that way already.
 */
export function inSubquery(db: Kysely<Database> | Transaction<Database>, value: Expression<unknown>, subquery: Expression<unknown>): RawBuilder<boolean> {
  return onPostgres(db) ? sql<boolean>`${value} = any(array(${subquery}))` : sql<boolean>`${value} in (${subquery})`;
}

/**
 * `value in (…)` over the strings of a JSON array bound as one text parameter (`list`): a list of
 * any length in a statement compiled once (see `precompiled`). On PostgreSQL as `= any(array(…))`,
 * so that even the plan it prepares for any list looks the rows up by `value`'s index.
 */
export function inJsonList(db: Kysely<Database> | Transaction<Database>, value: Expression<unknown>, list: string): RawBuilder<boolean> {
  return onPostgres(db) ? sql<boolean>`${value} = any(array(select json_array_elements_text(cast(${list} as json))))` : sql<boolean>`${value} in (select value from json_each(${list}))`;
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
 * Makes the rest of transaction `trx` exclusive for one workspace, so a limit checked by
 * counting holds until the insert commits. PostgreSQL locks the workspace row (`FOR UPDATE`);
 * SQLite needs nothing: its transactions run one at a time on the single connection.
 */
export async function lockWorkspace(trx: Transaction<Database>, workspaceId: string): Promise<void> {
  if (!onPostgres(trx)) return;
  await trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
}
