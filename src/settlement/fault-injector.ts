/**
 * Named points in the worker where a test may kill the process (SIGKILL, no cleanup), to prove that a
 * crash anywhere loses no order and sends no transaction twice. Empty in production.
 */
export type CrashPoint =
  | `before-record:${string}`
  | `after-record:${string}`
  | `after-send:${string}`
  | `after-confirm:${string}`;

export function createFaultInjector(points: readonly string[]) {
  const armed = new Set(points);
  return {
    at(point: CrashPoint): void {
      if (armed.has(point)) process.kill(process.pid, 'SIGKILL');
    },
  };
}

export type FaultInjector = ReturnType<typeof createFaultInjector>;
