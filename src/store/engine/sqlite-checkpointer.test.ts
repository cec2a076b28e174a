import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from './database.ts';
import { COMMIT_CHECKPOINT_PAGES, startSqliteCheckpointer } from './sqlite-checkpointer.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite checkpoints in a worker thread', () => {
  it("only long-running processes ask for the thread: a plain open keeps SQLite's own checkpoints", async () => {
    const database = createDatabase({ databaseUrl: `sqlite:${path.join(dir, 'plain.sqlite')}` });
    try {
      const pragma = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
        database.db,
      );
      expect(pragma.rows[0]?.wal_autocheckpoint).toBe(1000);
    } finally {
      await database.destroy();
    }
  });

  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-checkpoint-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the thread copies the log into the database file long before a commit would', async () => {
    const file = path.join(dir, 'ferry.sqlite');
    const problems: string[] = [];
    const database = createDatabase(
      { databaseUrl: `sqlite:${file}` },
      { backgroundCheckpoints: { onProblem: (m) => problems.push(m) } },
    );
    try {
      const autocheckpoint = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
        database.db,
      );
      expect(autocheckpoint.rows[0]?.wal_autocheckpoint).toBe(COMMIT_CHECKPOINT_PAGES);
      await sql`create table t (id integer primary key, body text not null)`.execute(database.db);
      const before = fs.statSync(file).size;
      // ~4 MB over many commits: far below the pages at which a commit checkpoints, so only the thread copies.
      for (let i = 0; i < 400; i++) {
        await database.transaction(async (trx) => {
          await sql`insert into t (body) values (${'x'.repeat(10_000)})`.execute(trx);
        });
      }
      const deadline = Date.now() + 10_000;
      while (fs.statSync(file).size < before + 4_000_000 && Date.now() < deadline) await sleep(100);
      expect(fs.statSync(file).size).toBeGreaterThan(before + 4_000_000);
      expect(problems).toEqual([]);
    } finally {
      await database.destroy();
    }
    // The last connection to close checkpoints and removes the log: nothing was left behind by the thread.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('under writes that never pause the log stays bounded: commits still start it over', async () => {
    const file = path.join(dir, 'busy.sqlite');
    const database = createDatabase(
      { databaseUrl: `sqlite:${file}` },
      { backgroundCheckpoints: { onProblem: () => {} } },
    );
    try {
      await sql`create table t (id integer primary key, body text not null)`.execute(database.db);
      let largest = 0;
      // ~180 MB in back-to-back commits, with no pause for the thread to finish a checkpoint between two of them.
      const row = 'x'.repeat(10_000);
      for (let i = 0; i < 15_000; i++) {
        await database.transaction(async (trx) => {
          await sql`insert into t (body) values (${row})`.execute(trx);
        });
        if (i % 250 === 0) largest = Math.max(largest, fs.statSync(`${file}-wal`).size);
      }
      // The backstop is ~40 MB of pages, overshot by what commits write while the thread holds the checkpoint
      // (up to ~62 MB seen on a loaded machine, so the bound leaves room for a slower disk); without it the log
      // holds everything written, 275 MB in this test.
      expect(largest).toBeGreaterThan(0);
      expect(largest).toBeLessThan(COMMIT_CHECKPOINT_PAGES * 4096 * 3);
    } finally {
      await database.destroy();
    }
  }, 60_000);

  it('when the thread fails, commits checkpoint by themselves again and the problem is reported', async () => {
    const file = path.join(dir, 'main.sqlite');
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    const problems: string[] = [];
    // The thread cannot open a file in a folder that does not exist: it fails at once.
    const checkpointer = startSqliteCheckpointer(sqlite, path.join(dir, 'missing', 'x.sqlite'), (m) =>
      problems.push(m),
    );
    try {
      const deadline = Date.now() + 10_000;
      while (problems.length === 0 && Date.now() < deadline) await sleep(50);
      expect(problems[0]).toMatch(/^WAL checkpoint thread (failed|exited), checkpoints return to commits/);
      await sleep(200);
      expect(problems).toHaveLength(1);
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      await checkpointer.stop();
      sqlite.close();
    }
  });
});
