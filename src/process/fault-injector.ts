/**
 * Points around recording and sending where a crash test may kill the process. src/chains' transaction client
 * passes them; they are declared here, a rung below it, so the injector names nothing above src/process.
 */
export type TxCrashPoint = `${
  | 'after-record'
  | 'after-send'
  | 'before-replace'
  | 'after-replace-record'
  | 'after-replace-send'
  | 'after-confirm'}:${string}`;

/**
 * Named points in the worker where a test may kill the process (SIGKILL, no cleanup), to prove that a
 * crash anywhere loses no order and sends no transaction twice. Empty in production. The transaction
 * client's points cover recording, sending and replacing a transaction.
 */
export type CrashPoint = TxCrashPoint | `before-record:${string}`;

export interface FaultInjector {
  /** Kills this process at once when `point` is armed; nothing otherwise. */
  at(point: CrashPoint): void;
}

export function createFaultInjector(points: readonly string[]): FaultInjector {
  const armed = new Set(points);
  return {
    at(point: CrashPoint): void {
      if (armed.has(point)) process.kill(process.pid, 'SIGKILL');
    },
  };
}
