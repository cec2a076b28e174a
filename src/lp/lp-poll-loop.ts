import type { LpJournal } from '../store/ledgers/lp-journal.ts';
import type { FerryApi } from './ferry-api.ts';
import type { BotLog } from './lp-bot-log.ts';
import type { PassReport } from './lp-pass-report.ts';

/** The most stop() waits for the pass in progress: everything the bot sends is in its journal already. */
const STOP_GRACE_MS = 3_000;

/**
 * One look for a receipt right after the broadcast (an instant devnet's is there), never a wait: a fill waiting for
 * its block would hold the fills of the orders deposited behind it. The next pass drives it on.
 */
export const RECEIPT_WAIT_MS = 0;

/**
 * When the next pass must run: when the next proof batch falls due (`proveDueAt`), and within a second while a
 * transaction is open (sent this pass or before), so a fill is seen at depth soon and its quote, marked filled,
 * stops holding the balance twice.
 */
export async function nextPassAt(journal: LpJournal, proveDueAt: number | null): Promise<number | null> {
  if (!(await journal.hasOpenActions())) return proveDueAt;
  const soon = Date.now() + 1_000;
  return proveDueAt === null ? soon : Math.min(proveDueAt, soon);
}

/** The bot's loop: a pass every `pollMs`, one at once when nudged, none while Ferry asked it to back off. */
export interface PollLoop {
  /** Polls every `pollMs` until stop() (and runs a pass at once when nudged); honours Retry-After on a 429. */
  start(pollMs: number): void;
  /** A streamed event asked for a pass now; honoured unless the server asked us to back off (429). */
  nudge(): void;
  /** Stops polling and waits for the pass in progress, at most STOP_GRACE_MS. */
  stop(): Promise<void>;
}

export function createPollLoop(parts: {
  /** One pass (the same promise while one is in progress). */
  runOnce(): Promise<PassReport>;
  /** The pass in progress, if any. */
  running(): Promise<PassReport> | null;
  /** Opens what nudges the loop (the WebSocket stream), or nothing; closed on stop(). */
  openNudger(): { close(): void } | null;
}): PollLoop {
  let stopped = true;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  let loopDone: Promise<void> | null = null;
  let nudger: { close(): void } | null = null;
  let nudged = false;
  let backingOff = false;

  return {
    nudge() {
      nudged = true;
      if (!backingOff) wake?.();
    },

    start(pollMs: number): void {
      if (!stopped) return;
      stopped = false;
      nudger = parts.openNudger();
      loopDone = (async () => {
        while (!stopped) {
          nudged = false;
          const report = await parts.runOnce();
          if (stopped) break;
          backingOff = report.retryAfterMs !== null;
          // A proof batch or an open transaction due before the next poll runs its pass on time (not while backing off).
          const due = backingOff || report.nextPassAt === null ? pollMs : report.nextPassAt - Date.now();
          const waitMs = Math.max(Math.min(pollMs, due), report.retryAfterMs ?? 0, 50);
          if (nudged && !backingOff) continue;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, waitMs);
          });
          if (timer) clearTimeout(timer);
          wake = null;
          backingOff = false;
        }
      })();
    },

    async stop(): Promise<void> {
      stopped = true;
      nudger?.close();
      nudger = null;
      if (timer) clearTimeout(timer);
      wake?.();
      // A pass waiting on an RPC (up to its timeout) is not waited out: what it sent is in the journal already,
      // and the next start drives it on.
      let grace: NodeJS.Timeout | undefined;
      const elapsed = new Promise<void>((resolve) => {
        grace = setTimeout(resolve, STOP_GRACE_MS);
      });
      await Promise.race([Promise.all([loopDone, parts.running()]), elapsed]);
      clearTimeout(grace);
    },
  };
}

/** Nudges the bot on a new quote request or a deposited order of its own, over the WebSocket. */
export function watchStream(api: FerryApi, log: BotLog, nudge: () => void): { close(): void } {
  let streaming = false;
  return api.watch({
    onQuoteRequest(event) {
      log.debug({ quoteRequestId: (event.data as { id: string }).id }, 'quote request streamed');
      nudge();
    },
    onOrderUpdate(event) {
      if ((event.data as { status: string }).status === 'deposited') nudge();
    },
    onStatus(status) {
      if (status === 'subscribed' && !streaming) {
        log.info(
          {},
          'streaming quote requests and order updates over WebSocket; polling stays as the fallback',
        );
      }
      streaming = status === 'subscribed';
    },
    onError(error) {
      const fatal = error.status === 401 || error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN';
      if (fatal) log.warn({ err: error.message }, 'WebSocket stream refused; polling only');
      else log.debug({ err: error.message }, 'WebSocket stream interrupted; reconnecting');
    },
  });
}
