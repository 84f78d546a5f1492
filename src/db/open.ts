import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration, type MigrationProvider, type MigrationResult } from 'kysely';
import pg from 'pg';
import { chatMigrations, type ChatTables } from '../chat/db.ts';
import { ingressMigrations, type IngressTables } from '../ingress/db.ts';
import { notifyMigrations, type NotifyTables } from '../notify/db.ts';
import { recordingMigrations, type RecordingTables } from '../recording/db.ts';
import { rulesMigrations, type RulesTables } from '../rules/db.ts';
import { storageMigrations, type StorageTables } from '../storage/db.ts';

/** Every table of every module. Timestamps are integer milliseconds; JSON is stored as text. */
export interface Database extends ChatTables, RecordingTables, StorageTables, NotifyTables, IngressTables, RulesTables {}

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  close(): Promise<void>;
}

// int8 columns (millisecond timestamps, byte counts) come back as numbers, as they do from SQLite.
pg.types.setTypeParser(20, (v: string) => Number(v));

const allMigrations: Record<string, Migration> = {
  ...chatMigrations,
  ...recordingMigrations,
  ...storageMigrations,
  ...notifyMigrations,
  ...ingressMigrations,
  ...rulesMigrations,
};

const provider: MigrationProvider = { getMigrations: async () => allMigrations };

export interface OpenDatabaseOptions {
  /** postgres:// URL; SQLite when absent. */
  readonly url?: string | undefined;
  /** SQLite file path (":memory:" allowed). */
  readonly sqlitePath?: string;
  /** PostgreSQL schema to use (created if missing); tests isolate themselves with one each. */
  readonly pgSchema?: string;
}

/**
 * `postgres://...?schema=name` names the schema in the URL itself (the convention of other tools), so separate
 * processes of one deployment or of one test share it through DATABASE_URL alone.
 */
function schemaFromUrl(opts: OpenDatabaseOptions): OpenDatabaseOptions {
  if (!opts.url || opts.pgSchema) return opts;
  const u = new URL(opts.url);
  const schema = u.searchParams.get('schema');
  if (schema === null) return opts;
  u.searchParams.delete('schema');
  return { ...opts, url: u.toString(), pgSchema: schema };
}

/** Whether a migration error is another schema having been dropped while the migrator introspected the database. */
function droppedMeanwhile(error: unknown, results: readonly MigrationResult[] | undefined, ownSchema: string | undefined): boolean {
  // A migration that ran and failed is a real failure; these come from the look around before any ran.
  if (results?.some((r) => r.status === 'Error')) return false;
  const message = String((error as Error)?.message ?? error);
  const m = /schema "([^"]+)" does not exist/.exec(message);
  if (m) return m[1] !== ownSchema;
  // The other schema's tables going while they were read (seen: column "delivered" of relation "chat_messages").
  return /(?:column "[^"]+" of )?relation "[^"]+" does not exist/.test(message);
}

/** Opens SQLite or PostgreSQL and applies all pending migrations. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const opts = schemaFromUrl(options);
  let db: Kysely<Database>;
  let dialect: DialectName;
  if (opts.url) {
    dialect = 'postgres';
    if (opts.pgSchema) {
      if (!/^[a-z_][a-z0-9_]*$/.test(opts.pgSchema)) throw new Error(`bad schema name ${opts.pgSchema}`);
      const c = new pg.Client({ connectionString: opts.url });
      c.on('error', () => undefined); // as below: a broken socket fails the query, it must not end the process
      await c.connect();
      try {
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${opts.pgSchema}`);
      } catch (e) {
        // Two processes starting together both try; the loser sees a duplicate and the schema exists anyway.
        if (!['23505', '42P06'].includes((e as { code?: string }).code ?? '')) throw e;
      } finally {
        await c.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: 10,
      // A server that went away (restart, partition) fails queries instead of hanging them: callers retry or fence.
      connectionTimeoutMillis: 5000,
      query_timeout: 15_000,
      keepAlive: true,
      ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
    });
    // An idle client whose connection broke is dropped by the pool, which then emits this; unheard, it would end
    // the process. The next query opens a new connection.
    pool.on('error', () => undefined);
    // A checked-out client (a query in flight, a transaction open) whose socket breaks fails its queries AND emits
    // `error` on itself, where the pool listens only while the client is idle: unheard, that ends the process
    // (a recorder killed by a PostgreSQL restart). The failed query is the caller's signal; the pool discards the
    // broken client when it is released (it is no longer queryable).
    pool.on('connect', (client) => void client.on('error', () => undefined));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    const path = opts.sqlitePath ?? ':memory:';
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  }
  // Kysely looks for its bookkeeping tables in every schema unless told which one; without this, a concurrent
  // test's private schema makes the migrator skip creating its own tables and fail.
  const migrator = new Migrator({
    db,
    provider,
    allowUnorderedMigrations: true,
    ...(opts.url && opts.pgSchema ? { migrationTableSchema: opts.pgSchema } : {}),
  });
  let { error, results } = await migrator.migrateToLatest();
  // The migrator finds its bookkeeping table by introspecting every schema of the database (pg_get_serial_sequence
  // on each table): another schema dropped meanwhile (another deployment or test on the same database) fails that
  // query with "schema ... does not exist", naming the other schema, or with a table or column of it that does not
  // exist any more. Nothing was changed: look again.
  for (let attempt = 1; attempt < 5 && error !== undefined && droppedMeanwhile(error, results, opts.pgSchema); attempt++) {
    ({ error, results } = await migrator.migrateToLatest());
  }
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    await db.destroy();
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
  return { db, dialect, close: () => db.destroy() };
}
