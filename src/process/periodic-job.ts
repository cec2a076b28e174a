import type { FastifyBaseLogger } from 'fastify';
import { isRetryable } from '../domain/ferry-error.ts';

export interface PeriodicJob<T> {
  /** One run now, or the run already under way (runs never overlap); tests call it directly. */
  runOnce(): Promise<T>;
  /**
   * A run that starts after this call: one already under way may have read its inputs (the clock) before the
   * caller changed them, so it is waited out, not joined. What a test that moved its clock calls.
   */
  runAfter(): Promise<T>;
  /** Runs every `intervalMs`, counted from the end of the previous run, so a slow run never piles up. */
  start(): void;
  /**
   * Asks for a run as soon as possible (something the job waits for happened): at once when idle, else right after
   * the run under way. Wakes arriving meanwhile collapse into that one run. Ignored while stopped.
   */
  wake(): void;
  /** Stops the schedule and waits for a run under way. */
  stop(): Promise<void>;
}

/** The loop of a background job (expiry sweep, settlement passes): single-flight, failures logged and retried. */
export function createPeriodicJob<T>(options: {
  name: string;
  intervalMs: number;
  run: () => Promise<T>;
  log: FastifyBaseLogger;
  /** Delay of the first run after start; the interval by default. */
  firstRunMs?: number;
  /**
   * Whether the pending timer keeps the process alive (default false: a helper job must not hold a process open).
   * A process whose only work is this job (`ferry worker`) needs it.
   */
  keepAlive?: boolean;
  /**
   * The least time between the end of one run and a woken start of the next (default 0). Wakes can come with every
   * block of every chain; this bounds how often the job runs, however fast they come.
   */
  minGapMs?: number;
}): PeriodicJob<T> {
  const { name, intervalMs, run, log } = options;
  let running: Promise<T> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  /** A wake arrived during a run: the next run starts when it ends, not after the interval. */
  let wokenDuringRun = false;
  const minGapMs = options.minGapMs ?? 0;
  let lastEnd = 0;
  const gapLeft = () => Math.max(0, lastEnd + minGapMs - Date.now());

  function runOnce(): Promise<T> {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  }

  async function tick(): Promise<void> {
    timer = null;
    try {
      // A direct runOnce under way may have read its inputs before a wake: the loop's own run follows it.
      if (running) await running.catch(() => {});
      if (stopped) return;
      wokenDuringRun = false;
      await runOnce();
    } catch (error) {
      // Both run again on schedule; one that cannot go otherwise unchanged (not retryable) wants a person.
      if (isRetryable(error)) log.warn({ err: error, job: name }, `${name} failed; will retry`);
      else log.error({ err: error, job: name }, `${name} failed (not retryable); will run again`);
    }
    lastEnd = Date.now();
    schedule(wokenDuringRun ? minGapMs : intervalMs);
  }

  function schedule(ms: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    if (!options.keepAlive) timer.unref();
  }

  return {
    runOnce,
    async runAfter() {
      if (running) await running.catch(() => {});
      return runOnce();
    },
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(options.firstRunMs ?? intervalMs);
    },
    wake() {
      if (stopped) return;
      if (timer) schedule(gapLeft());
      // No timer: the loop's run is under way (or just ended and is about to schedule the next): one more after it.
      else wokenDuringRun = true;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running?.catch(() => {});
    },
  };
}
