import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { NewEvent } from '../../domain/events.ts';
import { covers } from '../../domain/lp-coverage.ts';
import type { Executor } from './db-types.ts';
import { appendEvents, changeWithEvents } from './events-store.ts';
import { createGroupCommit } from './group-commit.ts';
import { PreparedStatementsClient } from './prepared-statements-client.ts';
import type { Database } from './schema.ts';
import { startSqliteCheckpointer } from './sqlite-checkpointer.ts';
import { StoreError, storeError, UncoveredQuoteError } from './store-errors.ts';

export type Dialect = 'sqlite' | 'postgres';

/** What a unit of work can do besides its row changes: queue the events that describe them. */
export interface UnitOfWork {
  /** Queues an event; it is appended after the work's last row change, in the same transaction. */
  emit(event: NewEvent): void;
}

export type CommitListener = (types: ReadonlySet<NewEvent['type']>) => void;

export type TransactionWork<T> = (trx: Transaction<Database>, uow: UnitOfWork) => Promise<T>;

export interface FerryDatabase {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * Runs `work` as one unit of work: its row changes and the events it emits commit together, and the call settles
   * after the commit, then the commit listeners hear of it (when it emitted). Driver errors come out as the typed
   * errors of store-errors.ts. On SQLite, work arriving in the same turn of the event loop shares one commit
   * (group-commit.ts); PostgreSQL batches commits itself.
   */
  transaction<T>(work: TransactionWork<T>): Promise<T>;
  /**
   * One insert (built by a store function) and its events, as one unit of work. On PostgreSQL it is a single
   * statement: the insert as a data-modifying CTE followed by the event append, one round trip instead of four
   * (begin, insert, append, commit). Elsewhere it is `transaction`. Only for inserts, which either write their row
   * or fail: the events are appended unconditionally, so an update that might match nothing belongs in
   * `transaction`, where the work decides whether to emit. Never call it inside `transaction` (it uses its own
   * connection).
   */
  write(change: (db: Executor) => CompiledQuery, events: readonly NewEvent[]): Promise<void>;
  /**
   * `write` for an insert that may insert nothing (`insert … select … where …`, returning its rows): the events are
   * appended only when it inserted, and the answer says whether it did. One statement on PostgreSQL too.
   */
  writeIfInserted(change: (db: Executor) => CompiledQuery, events: readonly NewEvent[]): Promise<boolean>;
  /**
   * Called after each commit that appended events, with the types appended: wakes the local tailer, tells other
   * instances, and wakes the settlement worker on a new order.
   */
  onCommitted(listener: CommitListener): () => void;
  destroy(): Promise<void>;
}

// int8 (bigint) columns hold unix milliseconds and event ids: far below 2^53, so numbers are exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * Opens the database named by DATABASE_URL: `sqlite:<file>` (embedded default) or `postgres://…`.
 * `backgroundCheckpoints` is for long-running processes (API, worker): a SQLite file gets its WAL checkpoints from a
 * thread (sqlite-checkpointer.ts), whose trouble is told to `onProblem`. One-shot commands and scripts leave it out
 * and keep SQLite's own checkpoints, without a thread to start and stop.
 */
export function createDatabase(
  { databaseUrl }: { databaseUrl: string },
  options: { backgroundCheckpoints?: { onProblem: (message: string) => void } } = {},
): FerryDatabase {
  if (databaseUrl.startsWith('sqlite:')) {
    return openSqlite(databaseUrl.slice('sqlite:'.length), options.backgroundCheckpoints?.onProblem ?? null);
  }
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 20,
    connectionTimeoutMillis: 5000,
    Client: PreparedStatementsClient,
  });
  // A client losing its connection (PostgreSQL restarted, backend terminated) must not crash the process: pg emits
  // 'error' on the client, and the pool only listens while the client is idle. A client checked out by a
  // transaction and between two statements would throw it uncaught. Its next query fails instead, and the pool
  // discards it on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return withUnitOfWork(
    db,
    'postgres',
    (work) => db.transaction().execute(work),
    () => db.destroy(),
  );
}

function openSqlite(file: string, onCheckpointProblem: ((message: string) => void) | null): FerryDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  cacheStatements(sqlite);
  registerAmountFunctions(sqlite);
  const checkpointer =
    file === ':memory:' || !onCheckpointProblem
      ? null
      : startSqliteCheckpointer(sqlite, file, onCheckpointProblem);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return withUnitOfWork(db, 'sqlite', createGroupCommit(db).run, async () => {
    await checkpointer?.stop();
    await db.destroy();
  });
}

type RunTransaction = <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T>;

const NO_EVENTS: ReadonlySet<NewEvent['type']> = new Set();

/** The one place where a change, its events and the notice after commit are put together. */
function withUnitOfWork(
  db: Kysely<Database>,
  dialect: Dialect,
  run: RunTransaction,
  destroy: () => Promise<void>,
): FerryDatabase {
  const listeners = new Set<CommitListener>();
  const database: FerryDatabase = {
    db,
    dialect,
    async transaction(work) {
      let appended: ReadonlySet<NewEvent['type']> = NO_EVENTS;
      const value = await run(async (trx) => {
        const queued: NewEvent[] = [];
        let open = true;
        const result = await work(trx, {
          emit(event) {
            if (!open) throw new StoreError('an event was emitted after its unit of work ended');
            queued.push(event);
          },
        });
        open = false;
        // After the last row change: on PostgreSQL the ids are taken here, at the end of the transaction.
        await appendEvents(trx, queued);
        if (queued.length > 0) appended = new Set(queued.map((event) => event.type));
        return result;
      }).catch((error: unknown) => {
        throw storeError(error);
      });
      if (appended.size > 0) for (const listener of listeners) listener(appended);
      return value;
    },
    async write(change, events) {
      if (dialect !== 'postgres' || events.length === 0) {
        await database.transaction(async (trx, uow) => {
          await trx.executeQuery(change(trx));
          for (const event of events) uow.emit(event);
        });
        return;
      }
      await db.executeQuery(changeWithEvents(change(db), events)).catch((error: unknown) => {
        throw storeError(error);
      });
      const appended = new Set(events.map((event) => event.type));
      for (const listener of listeners) listener(appended);
    },
    async writeIfInserted(change, events) {
      if (dialect !== 'postgres' || events.length === 0) {
        return database.transaction(async (trx, uow) => {
          const result = await trx.executeQuery(change(trx));
          const inserted = result.rows.length > 0 || (result.numAffectedRows ?? 0n) > 0n;
          if (inserted) for (const event of events) uow.emit(event);
          return inserted;
        });
      }
      const result = await db
        .executeQuery(changeWithEvents(change(db), events, { onlyIfChanged: true }))
        .catch((error: unknown) => {
          throw storeError(error);
        });
      if ((result.numAffectedRows ?? 0n) === 0n) return false;
      const appended = new Set(events.map((event) => event.type));
      for (const listener of listeners) listener(appended);
      return true;
    },
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    destroy,
  };
  return database;
}

/** One round trip that proves the database answers (readiness). */
export async function pingDatabase(database: FerryDatabase): Promise<void> {
  await sql`select 1`.execute(database.db);
}

/**
 * uint256 decimal strings added exactly, for the LP promise totals' triggers (migrations/0019-lp-promises.ts) and
 * the quote's coverage check: SQLite's own arithmetic stops at 64 bits. Every connection that may write quotes or
 * orders needs them.
 */
function registerAmountFunctions(sqlite: SQLite.Database): void {
  sqlite.function('ferry_u256_add', { deterministic: true }, (a: unknown, b: unknown) =>
    (BigInt(String(a)) + BigInt(String(b))).toString(),
  );
  sqlite.aggregate('ferry_u256_sum', {
    start: () => 0n,
    step: (total: bigint, amount: unknown) => total + BigInt(String(amount)),
    result: (total: bigint) => total.toString(),
  });
  // SQLite's half of lp-commitments-store.ts coverCheck (one writer: no lock to take).
  sqlite.function('ferry_cover', (promised: unknown, amount: unknown, held: unknown) => {
    const total = BigInt(String(promised));
    if (!covers(BigInt(String(held)), total, BigInt(String(amount)))) throw new UncoveredQuoteError(total);
    return 1;
  });
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
