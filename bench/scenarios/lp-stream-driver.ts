import WebSocket from 'ws';
import { jsonClient } from '../harness/json-client.ts';
import { percentile } from '../harness/percentile.ts';
import { startProcWindow } from '../harness/proc.ts';
import type { RunningServer } from '../harness/server.ts';

export interface LpStreamResult {
  readonly sockets: number;
  readonly connected: number;
  readonly requests: number;
  readonly created: number;
  readonly ratePerSec: number;
  readonly achievedRatePerSec: number;
  readonly expectedReceipts: number;
  readonly receipts: number;
  /** Receipt time minus the event's occurredAt (server clock, taken before the write commits): an upper bound. */
  readonly fromOccurredAt: { p50Ms: number; p99Ms: number; maxMs: number };
  /** Receipt time minus the POST's 201 arriving at the driver (after commit): may be negative. */
  readonly fromResponse: { p50Ms: number; p99Ms: number; earlierThanResponse: number };
  readonly cpuPercent: number;
  readonly peakRssBytes: number;
}

/**
 * Scenario 10: `lpKeys.length` liquidity-provider WebSockets subscribe to `quoteRequests` while the driver creates
 * quote requests at `ratePerSec` (open loop: each is sent on schedule, whether or not the previous answered).
 * Each socket stamps each `quoteRequest.created` on arrival; latencies are computed after the run.
 */
export async function driveLpStream(
  server: RunningServer,
  options: {
    lpKeys: readonly string[];
    moneyMoverKey: string;
    body: unknown;
    ratePerSec: number;
    seconds: number;
  },
): Promise<LpStreamResult> {
  const base = new URL(server.baseUrl);
  const arrivals: { at: number; raw: WebSocket.RawData }[] = [];
  let counting = false;
  const sockets: WebSocket[] = [];
  let connected = 0;
  await Promise.race([
    Promise.all(
      options.lpKeys.map(
        (key) =>
          new Promise<void>((resolve) => {
            const socket = new WebSocket(`ws://${base.host}/ws`, { headers: { 'x-api-key': key } });
            sockets.push(socket);
            socket.on('open', () =>
              socket.send(JSON.stringify({ op: 'subscribe', channels: ['quoteRequests'] })),
            );
            socket.on('message', (raw) => {
              if (counting) {
                arrivals.push({ at: Date.now(), raw });
                return;
              }
              const op = JSON.parse(String(raw)).op;
              if (op === 'subscribed') {
                connected++;
                resolve();
              } else if (op === 'error') resolve();
            });
            socket.on('error', () => resolve());
            socket.on('close', () => resolve());
          }),
      ),
    ),
    new Promise((r) => setTimeout(r, 30_000).unref()),
  ]);

  const client = jsonClient(server.baseUrl, 64);
  const responses = new Map<string, number>();
  const window = startProcWindow(server.pid);
  counting = true;
  const total = Math.round(options.ratePerSec * options.seconds);
  const interval = 1000 / options.ratePerSec;
  const t0 = Date.now();
  const inFlight: Promise<void>[] = [];
  let created = 0;
  for (let i = 0; i < total; i++) {
    const wait = t0 + i * interval - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      client
        .request('POST', '/api/v1/quote-requests', options.moneyMoverKey, options.body)
        .then((res) => {
          if (res.status !== 201) return;
          created++;
          responses.set(res.body.data.quoteId, Date.now());
        })
        .catch(() => {}),
    );
  }
  await Promise.all(inFlight);
  const achieved = total / ((Date.now() - t0) / 1000);
  const expected = created * connected;
  const until = Date.now() + 5000;
  while (arrivals.length < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const proc = window.stop();
  counting = false;
  for (const socket of sockets) socket.terminate();
  client.close();

  const fromOccurred: number[] = [];
  const fromResponse: number[] = [];
  for (const { at, raw } of arrivals) {
    const message = JSON.parse(String(raw));
    if (message.op !== 'event' || message.event?.type !== 'quoteRequest.created') continue;
    fromOccurred.push(at - Date.parse(message.event.occurredAt));
    const answered = responses.get(message.event.data?.id);
    if (answered !== undefined) fromResponse.push(at - answered);
  }
  fromOccurred.sort((a, b) => a - b);
  fromResponse.sort((a, b) => a - b);
  return {
    sockets: options.lpKeys.length,
    connected,
    requests: total,
    created,
    ratePerSec: options.ratePerSec,
    achievedRatePerSec: achieved,
    expectedReceipts: expected,
    receipts: fromOccurred.length,
    fromOccurredAt: {
      p50Ms: percentile(fromOccurred, 50),
      p99Ms: percentile(fromOccurred, 99),
      maxMs: fromOccurred.at(-1) ?? 0,
    },
    fromResponse: {
      p50Ms: percentile(fromResponse, 50),
      p99Ms: percentile(fromResponse, 99),
      earlierThanResponse: fromResponse.filter((d) => d < 0).length,
    },
    cpuPercent: proc.cpuPercent,
    peakRssBytes: proc.peakRssBytes,
  };
}
