import http from 'node:http';
import type { LoadResult, LoadSpec } from './load.ts';
import { startProcWindow } from './proc.ts';
import type { RunningServer } from './server.ts';

/**
 * A steady load: request k is due at k / rate seconds and is sent then, whether or not earlier ones answered (open
 * loop), over as many keep-alive sockets as are busy. Latency runs from the due time, not from the send, so a
 * stalled server or a late driver shows in it instead of quietly lowering the rate. autocannon's rate option is no
 * such load: each connection sends its share of a second back to back, then waits for the next second, so 1,000/s
 * over 50 connections arrives as a burst of 1,000 at the top of every second.
 */
export async function driveOpenLoop(
  server: RunningServer,
  spec: LoadSpec & { readonly ratePerSec: number },
): Promise<LoadResult> {
  const url = new URL(server.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(spec.ratePerSec * (spec.durationSeconds ?? 10));
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  const window = startProcWindow(server.pid, server.helperPids());
  const started = performance.now();
  let lastResponse = started;

  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const n = spec.next?.() ?? {};
      const body = n.body ?? spec.body;
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: spec.method ?? 'GET',
          path: n.path ?? spec.path,
          agent,
          headers: {
            ...spec.headers,
            ...n.headers,
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
              : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            lastResponse = performance.now();
            latencies.push(lastResponse - due);
            const code = String(res.statusCode ?? 0);
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(payload);
    });

  const inFlight: Promise<void>[] = [];
  for (let k = 0; k < total; ) {
    const now = performance.now();
    // Every request whose time has come goes now: a timer fires late by a millisecond or more.
    while (k < total && started + (k * 1000) / spec.ratePerSec <= now) {
      inFlight.push(send(started + (k * 1000) / spec.ratePerSec));
      k++;
    }
    const wait = started + (k * 1000) / spec.ratePerSec - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const proc = window.stop();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0);
  const seconds = (lastResponse - started) / 1000;
  const non2xx = Object.entries(statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    reqPerSec: seconds > 0 ? latencies.length / seconds : 0,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    requests: latencies.length,
    non2xx,
    errors,
    statusCodes,
    seconds,
    proc,
  };
}
