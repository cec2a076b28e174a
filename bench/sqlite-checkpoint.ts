/**
 * SQLite commits with WAL checkpoints in the committing connection (SQLite's default) against Ferry's checkpoint
 * thread (src/store/engine/sqlite-checkpointer.ts), in the same run: 60,000 single-row commits with 3 indexes, back to
 * back, each followed by an indexed read. Prints commits/s, commit latency percentiles, how many commits took
 * over 5 ms, and the largest WAL seen.
 *
 *   npx tsx bench/sqlite-checkpoint.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { startSqliteCheckpointer } from '../src/store/engine/sqlite-checkpointer.ts';

const COMMITS = 60_000;

async function run(name: string, withThread: boolean): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-checkpoint-bench-'));
  const file = path.join(dir, 'bench.sqlite');
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'create table t (id integer primary key, a text, b text, c text, d text);' +
      'create index ia on t(a); create index ib on t(b); create index ic on t(c)',
  );
  const checkpointer = withThread ? startSqliteCheckpointer(db, file, (m) => console.warn(m)) : null;
  const insert = db.prepare('insert into t (a, b, c, d) values (?, ?, ?, ?)');
  const read = db.prepare('select * from t where b = ?');
  const pad = 'x'.repeat(1500);
  const times: number[] = [];
  let largestWal = 0;
  const started = Date.now();
  for (let i = 0; i < COMMITS; i++) {
    const t0 = process.hrtime.bigint();
    db.transaction(() => insert.run(Math.random().toString(), Math.random().toString(), String(i), pad))();
    read.get(Math.random().toString());
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    // Lets the thread's timer and messages run, as a server's event loop would.
    if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    if (i % 1000 === 0) largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
  }
  const seconds = (Date.now() - started) / 1000;
  await checkpointer?.stop();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  times.sort((a, b) => a - b);
  const at = (q: number) => (times[Math.floor(times.length * q)] ?? 0).toFixed(3);
  console.log(
    `${name.padEnd(22)} ${Math.round(COMMITS / seconds)} commits/s; p50 ${at(0.5)} p99 ${at(0.99)} ` +
      `p99.9 ${at(0.999)} max ${(times.at(-1) ?? 0).toFixed(1)} ms; over 5 ms: ${times.filter((t) => t > 5).length}; ` +
      `largest WAL ${(largestWal / 1e6).toFixed(0)} MB`,
  );
}

for (let round = 0; round < 2; round++) {
  await run('checkpoint in commits', false);
  await run('checkpoint thread', true);
}
