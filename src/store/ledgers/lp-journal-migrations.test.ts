import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { FerryError } from '../../domain/ferry-error.ts';
import { openLpJournal } from './lp-journal.ts';
import {
  JOURNAL_STEPS,
  JOURNAL_VERSION,
  LpJournalMigrationError,
  LpJournalTooNewError,
} from './lp-journal-migrations.ts';

/**
 * Written by the last unversioned bot (commit a7ed1da's openLpJournal, before the journal had versions): a quote, a
 * confirmed fill with its proof row and output, and the open batch proving it, so every table holds a row.
 */
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'lp-journal-a7ed1da.sqlite');
const FILL_HASH = `0x${'01'.repeat(32)}` as const;
const TABLES = [
  'chain_actions',
  'chain_action_txs',
  'chain_nonces',
  'lp_quotes',
  'lp_fills',
  'lp_prove_batches',
  'lp_fill_outputs',
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-journal-migrations-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `journal-${++files}.sqlite`);
const fixtureCopy = () => {
  const file = newFile();
  fs.copyFileSync(FIXTURE, file);
  return file;
};

/** Runs `read` on the file outside the journal (the journal is closed first). */
function inspect<T>(file: string, read: (sqlite: SQLite.Database) => T): T {
  const sqlite = new SQLite(file);
  try {
    return read(sqlite);
  } finally {
    sqlite.close();
  }
}
const versionOf = (sqlite: SQLite.Database) => sqlite.pragma('user_version', { simple: true });
const rowsOf = (sqlite: SQLite.Database) =>
  Object.fromEntries(TABLES.map((t) => [t, sqlite.prepare(`select * from ${t} order by 1`).all()]));

/** Every table's columns, indexes and foreign keys as SQLite reports them: equal shapes behave alike. */
const shapeOf = (sqlite: SQLite.Database) =>
  Object.fromEntries(
    (
      sqlite.prepare("select name from sqlite_master where type = 'table' order by name").all() as {
        name: string;
      }[]
    ).map(({ name }) => [
      name,
      {
        columns: sqlite.pragma(`table_info(${name})`),
        foreignKeys: sqlite.pragma(`foreign_key_list(${name})`),
        indexes: (sqlite.pragma(`index_list(${name})`) as { name: string }[])
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((index) => ({ ...index, columns: sqlite.pragma(`index_info(${index.name})`) })),
      },
    ]),
  );

describe('LP journal versions', () => {
  it('opens a journal written by the last unversioned bot: every row kept, at the latest version', async () => {
    const file = fixtureCopy();
    const before = inspect(file, (sqlite) => ({ rows: rowsOf(sqlite), shape: shapeOf(sqlite) }));
    expect(Object.values(before.rows).every((rows) => rows.length > 0)).toBe(true);
    expect(inspect(file, versionOf)).toBe(0);

    const journal = openLpJournal(file);
    expect(await journal.findQuote('quote-1')).toMatchObject({
      status: 'ordered',
      offerer: expect.any(String),
    });
    expect((await journal.latestAction(FILL_HASH, 'fill'))?.status).toBe('confirmed');
    expect(await journal.proofs.openBatches()).toEqual([
      { batchId: 'prove-1', outputChain: 'b', status: 'open', orderHashes: [FILL_HASH] },
    ]);
    expect(await journal.confirmedOrdered()).toMatchObject([{ quoteId: 'quote-1', orderId: 'order-1' }]);
    await journal.close();

    expect(inspect(file, versionOf)).toBe(JOURNAL_VERSION);
    expect(inspect(file, rowsOf)).toEqual(before.rows);
    expect(inspect(file, shapeOf)).toEqual(before.shape);
  });

  it('a new journal gets every step, and the first is exactly the unversioned journal', async () => {
    const file = newFile();
    await openLpJournal(file).close();
    expect(inspect(file, versionOf)).toBe(JOURNAL_STEPS.length);
    // Today's only step: the same tables as the fixture's, column for column.
    expect(inspect(file, shapeOf)).toEqual(inspect(fixtureCopy(), shapeOf));
  });

  it('reopening a journal at the latest version changes nothing', async () => {
    const file = fixtureCopy();
    await openLpJournal(file).close();
    const snapshot = (sqlite: SQLite.Database) => ({
      version: versionOf(sqlite),
      schemaVersion: sqlite.pragma('schema_version', { simple: true }),
      schema: sqlite.prepare('select * from sqlite_master order by name').all(),
      rows: rowsOf(sqlite),
    });
    const first = inspect(file, snapshot);
    await openLpJournal(file).close();
    expect(inspect(file, snapshot)).toEqual(first);
  });

  it('refuses a journal newer than it knows, and leaves it as it is', () => {
    const file = fixtureCopy();
    inspect(file, (sqlite) => sqlite.pragma(`user_version = ${JOURNAL_VERSION + 1}`));
    const before = inspect(file, rowsOf);

    let refused: unknown;
    try {
      openLpJournal(file);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LpJournalTooNewError);
    expect(refused).toBeInstanceOf(FerryError);
    expect(refused).toMatchObject({ version: JOURNAL_VERSION + 1, retryable: false });
    expect((refused as Error).message).toContain(`newer than this bot knows (${JOURNAL_VERSION})`);
    expect(inspect(file, versionOf)).toBe(JOURNAL_VERSION + 1);
    expect(inspect(file, rowsOf)).toEqual(before);
  });

  it("gives an older bot's journal the columns it lacks (no offerer, no fill output's quote)", async () => {
    const file = newFile();
    inspect(file, (sqlite) =>
      sqlite.exec(`
        create table lp_quotes (quote_id text primary key, quote_request_id text not null, input_chain text not null,
          input_token text not null, input_amount text not null, output_chain text not null,
          output_token text not null, output_amount text not null, spread_bps integer not null,
          status text not null, reserved_until bigint not null);
        insert into lp_quotes values ('q', 'r', 'a', '0xaa', '1', 'b', '0xbb', '1', 5, 'active', 9);
        create table lp_fill_outputs (order_hash text primary key, chain text not null, token text not null,
          amount text not null);
        insert into lp_fill_outputs values ('0x01', 'b', '0xbb', '1');`),
    );
    const journal = openLpJournal(file);
    expect(await journal.findQuote('q')).toMatchObject({ offerer: '', status: 'active' });
    await journal.close();
    expect(inspect(file, (sqlite) => sqlite.prepare('select * from lp_fill_outputs').all())).toEqual([
      { order_hash: '0x01', chain: 'b', token: '0xbb', amount: '1', quote_id: '', order_id: '' },
    ]);
  });

  it('a step that fails leaves the journal as it was, the failure as the cause', () => {
    const file = newFile();
    // Half of the fill outputs' upgrade: adding order_id again fails.
    inspect(file, (sqlite) =>
      sqlite.exec(`create table lp_fill_outputs (order_hash text primary key, chain text not null,
        token text not null, amount text not null, order_id text not null default '')`),
    );
    expect(() => openLpJournal(file)).toThrow(LpJournalMigrationError);
    try {
      openLpJournal(file);
    } catch (error) {
      expect((error as LpJournalMigrationError).step).toBe(JOURNAL_STEPS[0]?.name);
      expect(String((error as Error).cause)).toMatch(/duplicate column/);
    }
    expect(inspect(file, versionOf)).toBe(0);
    expect(
      inspect(file, (sqlite) =>
        sqlite.prepare("select name from sqlite_master where name = 'lp_quotes'").all(),
      ),
    ).toEqual([]);
  });
});
