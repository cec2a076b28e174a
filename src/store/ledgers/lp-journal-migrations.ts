import type SQLite from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { FerryError } from '../../domain/ferry-error.ts';
import {
  actionFeeCappedAt,
  actionSenderOpenIndex,
  actionSeq,
  actionSubjectKindSeqIndex,
  actionWaitingSince,
  attemptActionIndex,
  attemptPurpose,
  chainActionColumns,
  chainActionTxColumns,
  chainNoncesTable,
  type LedgerColumn,
  withColumns,
} from '../migrations/ledger-columns.ts';

/**
 * The LP journal's schema as ordered steps, the version it is at kept in SQLite's `pragma user_version` (0: a
 * journal written before the journal was versioned, or a new file). Not Kysely's Migrator, as Ferry's database
 * uses: the journal is opened synchronously (openLpJournal), and a header field needs no bookkeeping tables.
 *
 * Steps are frozen once released: a change to the journal is a new step at the end, never an edit of an old one.
 */
interface JournalStep {
  readonly name: string;
  readonly up: (sqlite: SQLite.Database) => void;
}

/** Compiles the ledger's shared definitions to SQLite's SQL; never connects. */
const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});
const { schema } = compiler;

/** `columns` with `column` after the one named `name`: the journal's tables were written whole, not by alters. */
const insertAfter = (columns: readonly LedgerColumn[], name: string, column: LedgerColumn) => {
  const at = columns.findIndex(([n]) => n === name) + 1;
  return [...columns.slice(0, at), column, ...columns.slice(at)];
};

/** chain_actions as a journal holds it: Ferry's columns in one table, seq after kind as the journal always had it. */
const journalActionColumns = [
  ...insertAfter(chainActionColumns(false), 'kind', actionSeq),
  actionWaitingSince,
  actionFeeCappedAt,
];
const journalAttemptColumns = insertAfter(chainActionTxColumns, 'status', attemptPurpose);

/** The ledger tables as Ferry's migrations shape them (0002, 0004, 0010), without the foreign key to orders. */
const LEDGER_SCHEMA = [
  withColumns(schema.createTable('chain_actions').ifNotExists(), journalActionColumns),
  actionSubjectKindSeqIndex(schema).ifNotExists(),
  actionSenderOpenIndex(schema).ifNotExists(),
  withColumns(schema.createTable('chain_action_txs').ifNotExists(), journalAttemptColumns),
  attemptActionIndex(schema).ifNotExists(),
  chainNoncesTable(schema).ifNotExists(),
].map((statement) => statement.compile().sql);

/** The journal's own tables: the bot's quotes, its LayerZero fills and their proof batches, its fills' outputs. */
const LP_SCHEMA = [
  `create table if not exists lp_quotes (
    quote_id text primary key, quote_request_id text not null, input_chain text not null,
    input_token text not null, input_amount text not null, output_chain text not null,
    output_token text not null, output_amount text not null, spread_bps integer not null, status text not null,
    reserved_until bigint not null)`,
  'create index if not exists lp_quotes_open on lp_quotes (status, output_chain, output_token)',
  `create table if not exists lp_fills (
    order_hash text primary key, order_id text not null, output_chain text not null, input_chain text not null,
    escrow text not null, order_json text not null, status text not null, filled_at bigint, fill_block text,
    batch_id text)`,
  'create index if not exists lp_fills_open on lp_fills (status, output_chain)',
  `create table if not exists lp_prove_batches (
    batch_id text primary key, output_chain text not null, status text not null, created_at bigint not null)`,
  'create index if not exists lp_prove_batches_open on lp_prove_batches (status)',
  `create table if not exists lp_fill_outputs (
    order_hash text primary key, chain text not null, token text not null, amount text not null,
    quote_id text not null default '', order_id text not null default '')`,
];

const hasColumn = (sqlite: SQLite.Database, table: string, column: string) =>
  (sqlite.prepare(`pragma table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column);

/**
 * Step 1 is the journal as every unversioned bot left it: created where missing, and a journal of an older bot
 * given the columns it lacks (their rows count for no offerer, quote or order). A journal written by the last
 * unversioned bot already has all of it and only gains its version.
 */
function unversionedJournal(sqlite: SQLite.Database): void {
  for (const statement of [...LEDGER_SCHEMA, ...LP_SCHEMA]) sqlite.exec(statement);
  if (!hasColumn(sqlite, 'lp_quotes', 'offerer'))
    sqlite.exec("alter table lp_quotes add column offerer text not null default ''");
  if (!hasColumn(sqlite, 'lp_fill_outputs', 'quote_id'))
    sqlite.exec(
      "alter table lp_fill_outputs add column quote_id text not null default ''; " +
        "alter table lp_fill_outputs add column order_id text not null default ''",
    );
}

export const JOURNAL_STEPS: readonly JournalStep[] = [
  { name: '0001-unversioned-journal', up: unversionedJournal },
];

/** The version a journal is at once this code opened it. */
export const JOURNAL_VERSION = JOURNAL_STEPS.length;

/** A journal written by a newer bot: this one does not know its schema, and writing to it could lose fills. */
export class LpJournalTooNewError extends FerryError {
  override readonly name = 'LpJournalTooNewError';
  constructor(
    readonly file: string,
    readonly version: number,
  ) {
    super(
      `the LP journal ${file} is at version ${version}, newer than this bot knows (${JOURNAL_VERSION}): run the bot version that wrote it or a newer one`,
      { retryable: false },
    );
  }
}

/** A step that failed: the upgrade is one write, so the journal stays as it was. */
export class LpJournalMigrationError extends FerryError {
  override readonly name = 'LpJournalMigrationError';
  constructor(
    readonly file: string,
    readonly step: string,
    cause: unknown,
  ) {
    super(`the LP journal ${file} could not be upgraded (step ${step})`, { cause, retryable: false });
  }
}

const versionOf = (sqlite: SQLite.Database) => Number(sqlite.pragma('user_version', { simple: true }));

/**
 * Brings the journal to JOURNAL_VERSION: every pending step and the new version in one write. Under the write lock: two bots
 * started at once on one journal (the same fill address) would otherwise both run a step, and the second would
 * fail on the first's work (an old table's column added twice: "duplicate column").
 */
export function migrateLpJournal(sqlite: SQLite.Database, file: string): void {
  sqlite
    .transaction(() => {
      const found = versionOf(sqlite);
      if (found > JOURNAL_VERSION) throw new LpJournalTooNewError(file, found);
      for (const [index, step] of JOURNAL_STEPS.entries()) {
        if (index < found) continue;
        try {
          step.up(sqlite);
        } catch (error) {
          throw new LpJournalMigrationError(file, step.name, error);
        }
        sqlite.pragma(`user_version = ${index + 1}`);
      }
    })
    .immediate();
}
