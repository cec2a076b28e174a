/** Runs one piece of work on demand, never twice at once. */
export interface SerialRun {
  /** Starts a run now, or, while one is running, asks for exactly one more after it (however often asked). */
  request(): void;
  /** Whether a run is in progress. */
  readonly busy: boolean;
  /** No run starts after this; resolves once the run in progress (if any) has ended. */
  stop(): Promise<void>;
}

/**
 * For work that must see every request but need not run once per request (reading new events, checking open
 * streams' credentials): requests made during a run fold into one more run. A failed run goes to `onError`; the
 * next request runs again.
 */
export function createSerialRun(work: () => Promise<void>, onError: (error: unknown) => void): SerialRun {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  return {
    request() {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = (async () => {
        do {
          again = false;
          await work();
        } while (again && !stopped);
      })()
        .catch(onError)
        .finally(() => {
          running = null;
        });
    },
    get busy() {
      return running !== null;
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
