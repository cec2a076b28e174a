import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the checkpointer copies the write-ahead log into the database file. */
export const CHECKPOINT_INTERVAL_MS = 1000;

// CommonJS run by the worker thread: its own connection, a PASSIVE checkpoint on a timer. PASSIVE never waits for
// readers or writers, so the API's connection keeps committing while the pages and their fsync are written here.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { timeout: 5000 });
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ failed: String((error && error.message) || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface SqliteCheckpointer {
  /** Stops the thread and closes its connection (before the main connection closes, which checkpoints last). */
  stop(): Promise<void>;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop. By default the connection that commits past 1,000 WAL pages
 * runs the checkpoint itself, inside that commit: it writes the pages back and fsyncs the file, stalling every
 * request and stream of the process for several milliseconds (measured: commits over 5 ms went from 54–92 to 0–13
 * in 20,000). Here the main connection's automatic checkpoint is turned off and a worker thread checkpoints every
 * second instead. If that thread fails, the automatic checkpoint is turned back on, so the log never grows
 * without bound.
 */
export function startSqliteCheckpointer(
  sqlite: SQLite.Database,
  file: string,
  onProblem: (message: string) => void,
): SqliteCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file, intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopping = false;
  const fallBack = (message: string) => {
    if (stopping || !sqlite.open) return;
    sqlite.pragma('wal_autocheckpoint = 1000');
    onProblem(message);
  };
  worker.on('message', (message: { failed?: string }) => {
    if (message.failed) onProblem(`WAL checkpoint failed (it is retried): ${message.failed}`);
  });
  worker.on('error', (error) =>
    fallBack(`WAL checkpoint thread failed, checkpoints return to commits: ${error.message}`),
  );
  worker.on('exit', () => fallBack('WAL checkpoint thread exited, checkpoints return to commits'));
  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      worker.postMessage('stop');
      // A thread stuck in a checkpoint must not hold the shutdown.
      const timer = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
