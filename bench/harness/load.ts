import autocannon from 'autocannon';
import { driveOpenLoop } from './open-loop.ts';
import { type ProcSample, startProcWindow } from './proc.ts';
import type { RunningServer } from './server.ts';

export interface LoadResult {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly statusCodes: Record<string, number>;
  /** From the start to the last response (wall clock): what the rate divides by. */
  readonly seconds: number;
  readonly proc: ProcSample;
}

export interface LoadSpec {
  readonly method?: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** Called for each request; returns the path, headers and body to send (for per-request data). */
  readonly next?: () => { path?: string; headers?: Record<string, string>; body?: unknown };
  readonly connections: number;
  readonly durationSeconds?: number;
  /** Stop after this many requests instead of after a duration. */
  readonly amount?: number;
  /** A steady load of this many requests a second (open-loop.ts) instead of as fast as they go. */
  readonly ratePerSec?: number;
}

/** Drives one scenario with autocannon (in this process, a separate process from the server) on loopback. */
export async function drive(server: RunningServer, spec: LoadSpec): Promise<LoadResult> {
  if (spec.ratePerSec !== undefined) return driveOpenLoop(server, { ...spec, ratePerSec: spec.ratePerSec });
  const headers = {
    ...(spec.body !== undefined || spec.next ? { 'content-type': 'application/json' } : {}),
    ...spec.headers,
  };
  const window = startProcWindow(server.pid, server.helperPids());
  const started = process.hrtime.bigint();
  let lastResponse = started;
  const next = spec.next;
  const instance = autocannon({
    url: server.baseUrl,
    connections: spec.connections,
    pipelining: 1,
    timeout: 30,
    ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.durationSeconds ?? 10 }),
    requests: [
      {
        method: spec.method ?? 'GET',
        path: spec.path,
        headers,
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
        ...(next
          ? {
              setupRequest: (request) => {
                const n = next();
                return {
                  ...request,
                  ...(n.path ? { path: n.path } : {}),
                  headers: { ...headers, ...n.headers },
                  ...(n.body !== undefined ? { body: JSON.stringify(n.body) } : {}),
                };
              },
            }
          : {}),
      },
    ],
  });
  instance.on('response', () => {
    lastResponse = process.hrtime.bigint();
  });
  const result = await instance;
  // The wall clock from the start to the last response. autocannon's own duration runs to its next one-second tick
  // after the work ended: a fixed amount of work (6b's swaps) done in 2.1 s read as done in 3 s.
  const seconds = Number(lastResponse - started) / 1e9;
  const proc = window.stop();
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  const completed = result['2xx'] + result.non2xx;
  return {
    reqPerSec: seconds > 0 ? completed / seconds : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: completed,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    seconds,
    proc,
  };
}
