import type { FastifyBaseLogger } from 'fastify';

/**
 * The one list of what a process must close, in the order things were opened: closing runs newest first (the HTTP
 * server drains before the database it uses closes). Idempotent: a second signal, or a test's close after a
 * signal, gets the same promise. One part failing to close is logged and the others still close.
 */
export interface ShutdownRegistry {
  register(name: string, close: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export function createShutdownRegistry(log: FastifyBaseLogger): ShutdownRegistry {
  const parts: Array<{ name: string; close: () => Promise<void> | void }> = [];
  let closing: Promise<void> | null = null;
  return {
    register(name, close) {
      if (closing) throw new Error(`cannot register ${name}: the process is shutting down`);
      parts.push({ name, close });
    },
    close() {
      closing ??= (async () => {
        for (const part of [...parts].reverse()) {
          try {
            await part.close();
          } catch (error) {
            log.warn({ err: error, part: part.name }, 'closing failed; closing the rest');
          }
        }
      })();
      return closing;
    },
  };
}

/** SIGINT and SIGTERM close the registry, then end the process. */
export function closeOnSignals(shutdown: ShutdownRegistry, log: FastifyBaseLogger): void {
  const onSignal = (signal: string) => {
    log.info({ signal }, 'shutting down');
    void shutdown.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
}
