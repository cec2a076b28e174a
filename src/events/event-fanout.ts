import type { FastifyBaseLogger } from 'fastify';
import { createSerialRun } from '../process/serial-run.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { latestFinalEventId, readFinalEventsAfter, type StoredEvent } from '../store/engine/events-store.ts';

const PAGE = 500;
/** First retry when committed events wait behind a running transaction; doubles up to the poll interval. */
const HELD_BACK_RETRY_MS = 2;

export type EventListener = (event: StoredEvent) => void;

/**
 * The one tailer of the event log per process. Streams never query the log for live events themselves: this
 * reads each new event once and hands it to every connected client, so the database load does not grow with
 * the number of clients.
 */
export interface EventFanout {
  /** Id of the last event handed out. A listener added now receives exactly the events after it. */
  readonly position: number;
  /**
   * Changes whenever this process committed events or the tailer handed out new ones: what a cache of data that
   * only changes with an event (the public order pages) is tagged with, so it answers without asking the database.
   */
  readonly version: number;
  subscribe(listener: EventListener): () => void;
  /** Reads the log now (after a notice from another instance). */
  wake(): void;
  /** After a local commit that appended events: moves the version at once (read-your-writes), then reads. */
  committedLocally(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createEventFanout(options: {
  database: FerryDatabase;
  pollMs: number;
  log: FastifyBaseLogger;
}): EventFanout {
  const { database, log } = options;
  const listeners = new Set<EventListener>();
  let position = 0;
  let version = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let retryMs = HELD_BACK_RETRY_MS;
  let retry: NodeJS.Timeout | null = null;

  /**
   * Hands out the final events after `position`, in id order (events-store.ts: readFinalEventsAfter). Events that
   * wait behind a running transaction are read again shortly: the transaction holding them back may write no event
   * (or roll back), so no commit notice would come for them.
   */
  async function readNew(): Promise<void> {
    for (;;) {
      const { events: batch, heldBack } = await readFinalEventsAfter(database.db, position, PAGE);
      if (batch.length > 0) version++;
      for (const event of batch) {
        position = event.id;
        for (const listener of listeners) {
          try {
            listener(event);
          } catch (error) {
            // One broken client must not stop delivery to the others.
            log.warn({ err: error }, 'event listener failed');
          }
        }
      }
      // The backoff restarts whenever events got through: it only grows while one transaction holds everything.
      if (batch.length > 0 || !heldBack) resetRetry();
      if (heldBack) retrySoon();
      if (batch.length < PAGE || heldBack || stopped) return;
    }
  }

  function resetRetry(): void {
    retryMs = HELD_BACK_RETRY_MS;
    if (retry) clearTimeout(retry);
    retry = null;
  }

  function retrySoon(): void {
    if (retry || stopped) return;
    retry = setTimeout(() => {
      retry = null;
      wake();
    }, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, options.pollMs);
  }

  const reads = createSerialRun(readNew, (error) =>
    log.warn({ err: error }, 'reading the event log failed; the next poll retries'),
  );

  let soon = false;
  function wake(): void {
    if (stopped) return;
    // Reads are never concurrent (position must advance in order); a wake during a read asks for one more.
    if (reads.busy) {
      reads.request();
      return;
    }
    // Every commit wakes the tailer; the commits of one turn of the event loop are read with one query.
    if (soon) return;
    soon = true;
    setImmediate(() => {
      soon = false;
      reads.request();
    });
  }

  return {
    get position() {
      return position;
    },
    get version() {
      return version;
    },
    committedLocally() {
      version++;
      wake();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    wake,
    async start() {
      // Live delivery starts at the end of the log: older events are only for replay.
      position = await latestFinalEventId(database.db);
      timer = setInterval(wake, options.pollMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (retry) clearTimeout(retry);
      timer = null;
      await reads.stop();
      listeners.clear();
    },
  };
}
