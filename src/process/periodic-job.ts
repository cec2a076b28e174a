import type { FastifyBaseLogger } from 'fastify';

export interface PeriodicJob<T> {
  /** One run now, or the run already under way (runs never overlap); tests call it directly. */
  runOnce(): Promise<T>;
  /** Runs every `intervalMs`, counted from the end of the previous run, so a slow run never piles up. */
  start(): void;
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
}): PeriodicJob<T> {
  const { name, intervalMs, run, log } = options;
  let running: Promise<T> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;

  function runOnce(): Promise<T> {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(ms: number): void {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        await runOnce();
      } catch (error) {
        log.warn({ err: error, job: name }, `${name} failed; will retry`);
      }
      schedule(intervalMs);
    }, ms);
    timer.unref();
  }

  return {
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(options.firstRunMs ?? intervalMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running?.catch(() => {});
    },
  };
}
