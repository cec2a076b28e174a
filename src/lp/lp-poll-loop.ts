import type { PassReport } from './lp-bot.ts';

/** The most stop() waits for the pass in progress: everything the bot sends is in its journal already. */
const STOP_GRACE_MS = 3_000;

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
          const waitMs = Math.max(pollMs, report.retryAfterMs ?? 0);
          backingOff = report.retryAfterMs !== null;
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
