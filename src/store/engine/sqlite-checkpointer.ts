import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the thread copies the write-ahead log into the database file (a no-op when there is nothing new). */
export const CHECKPOINT_INTERVAL_MS = 200;
/**
 * WAL pages (4 KiB) at which a commit checkpoints by itself, as the backstop that bounds the log (~40 MB). By then
 * the thread has copied nearly every page, so the commit's own checkpoint is short; and only a checkpoint that
 * runs between two writes can finish, which lets the next write start the log from its beginning again. While the
 * thread holds the checkpoint, a commit's attempt is skipped and the next commit tries again, so the log can pass
 * the mark by what is written meanwhile (62 MB was the most seen, back-to-back 10 KB commits on a loaded machine).
 */
export const COMMIT_CHECKPOINT_PAGES = 10_000;
/** SQLite's own default, restored when the thread is gone. */
const DEFAULT_CHECKPOINT_PAGES = 1000;

// CommonJS run by the worker thread: its own connection, a PASSIVE checkpoint on a timer. PASSIVE never waits for
// readers or writers, so the API's connection keeps committing while the pages and their fsync are written here.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { timeout: 5000 });
// A failure is reported when it starts, not on every tick while it lasts.
let failing = false;
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    failing = false;
  } catch (error) {
    if (!failing) parentPort.postMessage({ failed: String((error && error.message) || error) });
    failing = true;
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
 * Moves most of SQLite's WAL checkpoint work off the event loop. By default the connection that commits past 1,000
 * WAL pages runs the checkpoint itself, inside that commit: it writes the pages back and fsyncs the file, stalling
 * every request and stream of the process for several milliseconds. Here a worker thread with its own connection
 * copies the log every 200 ms (PASSIVE: it never waits for, nor blocks, the writer), and commits checkpoint only
 * every COMMIT_CHECKPOINT_PAGES.
 *
 * The thread alone is not enough: under steady writes its checkpoint never catches up with the last frame, and
 * SQLite starts the log over only after a complete one, so the log would grow without bound (1.4 GB in 60,000
 * commits). `npx tsx bench/sqlite-checkpoint.ts` (60,000 single-row commits with 3 indexes, back to back): by
 * default 12,600–13,300 commits/s, 275–294 commits over 5 ms, the longest 9–10 ms; this way 17,000–17,500
 * commits/s, 34–35 over 5 ms, a log of at most ~51 MB, and the longest commit 48–52 ms: the one that starts the log
 * over, once per ~40 MB written. If the thread fails, commits go back to SQLite's default.
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
  sqlite.pragma(`wal_autocheckpoint = ${COMMIT_CHECKPOINT_PAGES}`);
  let stopping = false;
  let fellBack = false;
  const fallBack = (message: string) => {
    // 'error' is followed by 'exit': one warning for one failure.
    if (stopping || fellBack || !sqlite.open) return;
    fellBack = true;
    sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
    onProblem(message);
  };
  worker.on('message', (message: { failed?: string }) => {
    if (message.failed) onProblem(`WAL checkpoint failed (it is retried): ${message.failed}`);
  });
  worker.on('error', (error) =>
    fallBack(`WAL checkpoint thread failed, checkpoints return to commits: ${error.message}`),
  );
  worker.on('exit', () => fallBack('WAL checkpoint thread exited, checkpoints return to commits'));
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      // Every caller waits for the thread to be gone, so the main connection always closes last.
      stopped ??= (async () => {
        stopping = true;
        worker.postMessage('stop');
        // A thread stuck in a checkpoint must not hold the shutdown.
        const timer = setTimeout(() => void worker.terminate(), 5000);
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
