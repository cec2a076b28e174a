import type { FastifyBaseLogger } from 'fastify';
import { FerryError } from '../domain/ferry-error.ts';
import { exitCodeFor } from './exit-code.ts';

/** How long closing every part may take before the process gives up on the rest and says which. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** A part registered after shutdown began: it would never be closed. */
export class ShutdownError extends FerryError {
  override readonly name = 'ShutdownError';
  constructor(message: string) {
    super(message, { retryable: false });
  }
}

/** How a shutdown went: the parts that had not stopped when the deadline passed (none when all did). */
export interface ShutdownReport {
  readonly unstopped: readonly string[];
}

/**
 * The one list of what a process must close, in the order things were opened: closing runs newest first (the HTTP
 * server drains before the database it uses closes). Idempotent: a second signal, or a test's close after a
 * signal, gets the same promise. One part failing to close is logged and the others still close. Closing ends by
 * the deadline (SHUTDOWN_DEADLINE_MS unless `deadlineMs`): then the part under way and those after it are logged
 * by name as not stopped, and the report lists them.
 */
export interface ShutdownRegistry {
  register(name: string, close: () => Promise<void> | void): void;
  close(): Promise<ShutdownReport>;
}

export function createShutdownRegistry(
  log: FastifyBaseLogger,
  options: { readonly deadlineMs?: number } = {},
): ShutdownRegistry {
  const deadlineMs = options.deadlineMs ?? SHUTDOWN_DEADLINE_MS;
  const parts: Array<{ name: string; close: () => Promise<void> | void }> = [];
  let closing: Promise<ShutdownReport> | null = null;

  async function closeAll(): Promise<ShutdownReport> {
    const pending = [...parts].reverse();
    const closeInTurn = async () => {
      for (let part = pending[0]; part; part = pending[0]) {
        try {
          await part.close();
        } catch (error) {
          log.warn({ err: error, part: part.name }, 'closing failed; closing the rest');
        }
        pending.shift();
      }
    };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      // Not unref'd: a part that hangs on a promise holding no handle must still be named when the deadline passes,
      // not let the process end quietly with the part still unfinished.
      timer = setTimeout(() => resolve('deadline'), deadlineMs);
    });
    const outcome = await Promise.race([closeInTurn(), deadline]);
    clearTimeout(timer);
    if (outcome !== 'deadline') return { unstopped: [] };
    const unstopped = pending.map((p) => p.name);
    log.error(
      { parts: unstopped, deadlineMs },
      `shutdown deadline passed; not stopped: ${unstopped.join(', ')}`,
    );
    return { unstopped };
  }

  return {
    register(name, close) {
      if (closing) throw new ShutdownError(`cannot register ${name}: the process is shutting down`);
      parts.push({ name, close });
    },
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}

/**
 * SIGINT and SIGTERM close the registry, then end the process: 0 when every part stopped in time, 1 when the
 * deadline passed first. An unhandled rejection or uncaught exception is logged (its causes through the logger's
 * error serializer, which keeps no URL credentials) and ends the process the same way, with the error's exit code
 * (exitCodeFor: 75 when retryable, else 1).
 */
export function closeOnSignals(shutdown: ShutdownRegistry, log: FastifyBaseLogger): void {
  const end = (code: number) =>
    void shutdown.close().then(
      (report) => process.exit(report.unstopped.length > 0 ? 1 : code),
      () => process.exit(1),
    );
  const onSignal = (signal: string) => {
    log.info({ signal }, 'shutting down');
    end(0);
  };
  const onFatal = (kind: string) => (error: unknown) => {
    log.fatal({ err: error }, `${kind}; shutting down`);
    end(exitCodeFor(error));
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.on('unhandledRejection', onFatal('unhandled rejection'));
  process.on('uncaughtException', onFatal('uncaught exception'));
}
