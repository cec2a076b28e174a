import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { createGroupCommit, type TransactionWork } from './group-commit.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface FerryDatabase {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * Runs `work` in a transaction and settles after its commit. On SQLite, work arriving in the same turn of the
   * event loop shares one commit (group-commit.ts); PostgreSQL batches commits itself.
   */
  transaction<T>(work: TransactionWork<T>): Promise<T>;
  destroy(): Promise<void>;
}

// int8 (bigint) columns hold unix milliseconds and event ids: far below 2^53, so numbers are exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Opens the database named by DATABASE_URL: `sqlite:<file>` (embedded default) or `postgres://…`. */
export function createDatabase({ databaseUrl }: { databaseUrl: string }): FerryDatabase {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(databaseUrl.slice('sqlite:'.length));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, connectionTimeoutMillis: 5000 });
  // A client losing its connection (PostgreSQL restarted, backend terminated) must not crash the process: pg emits
  // 'error' on the client, and the pool only listens while the client is idle. A client checked out by a
  // transaction and between two statements would throw it uncaught. Its next query fails instead, and the pool
  // discards it on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    transaction: (work) => db.transaction().execute(work),
    destroy: () => db.destroy(),
  };
}

function openSqlite(file: string): FerryDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  cacheStatements(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const groupCommit = createGroupCommit(db);
  return { db, dialect: 'sqlite', transaction: groupCommit.run, destroy: () => db.destroy() };
}

/**
 * Kysely prepares every query anew, and preparing costs more than running a point lookup (bench/README.md).
 * Queries are parameterised, so the same SQL text can reuse one prepared statement; the cache is bounded, and a
 * statement still busy (a streaming iterator) is never handed out twice.
 */
function cacheStatements(sqlite: SQLite.Database, max = 500): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const statements = new Map<string, SQLite.Statement>();
  sqlite.prepare = ((source: string) => {
    const cached = statements.get(source);
    if (cached && !cached.busy) return cached;
    const statement = prepare(source);
    if (!cached) {
      if (statements.size >= max) statements.delete(statements.keys().next().value as string);
      statements.set(source, statement);
    }
    return statement;
  }) as typeof sqlite.prepare;
}

/** True when a driver error is a unique-constraint violation (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when a driver error means the database cannot be reached right now (worth a 503, not a 500). */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = String((error as { code?: unknown }).code ?? '');
  return (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      '57P01',
      '57P02',
      '57P03',
      '08000',
      '08003',
      '08006',
    ].includes(code) ||
    code === 'SQLITE_BUSY' ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(String((error as Error).message))
  );
}
