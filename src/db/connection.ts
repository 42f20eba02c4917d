import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import type Pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type DatabaseIntrospector, type LogEvent, type Transaction } from 'kysely';
import type { Database } from './database.ts';
import { OwnSchemaIntrospector } from './sql.ts';

// Opening the database: SQLite's writing connection, its read-only one and the watch on its
// commits, or PostgreSQL's pool; statements kept prepared on both. The SQL that only one dialect
// understands is in sql.ts.

/** Where the database is: a SQLite file, or a PostgreSQL server (in its own schema, when given). */
export type DatabaseTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

/** Sees every statement run (tests count the work a request does with it). */
export type QueryObserver = (query: { sql: string; parameters: readonly unknown[] }) => void;

/**
 * Both drivers are CommonJS: required directly, not imported, they load without Node's
 * ES-module wrapper of a CommonJS package (which parses its entry file once more to list its names).
 */
const require = createRequire(import.meta.url);

/** Opens the database; only the driver of the configured dialect is loaded. */
export async function createKysely(
  target: DatabaseTarget,
  options: { onQuery?: QueryObserver | undefined } = {},
): Promise<Kysely<Database>> {
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
  const read = () =>
    fs.readSync(fd, header, 0, header.length, 0) === header.length && header.compare(header, 0, WAL_INDEX_HEADER, WAL_INDEX_HEADER) === 0;
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
