import http from 'node:http';
import WebSocket from 'ws';
import { percentile } from './flow.ts';
import { rssBytes, startProcWindow } from './proc.ts';
import type { RunningServer } from './server.ts';

export interface FanoutResult {
  readonly sseClients: number;
  readonly wsClients: number;
  readonly connectedSse: number;
  readonly connectedWs: number;
  readonly events: number;
  readonly expectedReceipts: number;
  readonly receipts: number;
  readonly sse: { p50Ms: number; p99Ms: number };
  readonly ws: { p50Ms: number; p99Ms: number };
  readonly all: { p50Ms: number; p99Ms: number };
  readonly cpuPercent: number;
  readonly peakRssBytes: number;
  readonly rssWithClientsBytes: number;
}

const LATENCY_OF = (wire: { occurredAt: string }, receivedAt: number) =>
  receivedAt - Date.parse(wire.occurredAt);
const MARK = 'event: quoteRequest.created';

/** One SSE client's chunks with their arrival times; frames are cut and parsed after the run. */
function sseLatencies(chunks: readonly { at: number; text: string }[]): number[] {
  const out: number[] = [];
  let buffer = '';
  for (const { at, text } of chunks) {
    buffer += text;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').find((l) => l.startsWith('data: '));
      if (data && frame.includes(MARK)) out.push(LATENCY_OF(JSON.parse(data.slice(6)), at));
      end = buffer.indexOf('\n\n');
    }
  }
  return out;
}

/**
 * Scenario 7: `sseClients` SSE streams (GET /api/public/stream, anonymous) and `wsClients` WebSocket subscribers
 * (GET /ws with an API key, channel `public`) stay connected while the driver writes `events` quote requests at
 * `ratePerSec`. The latency of each receipt is its arrival time minus the event's occurredAt (taken by the server
 * when the API write ran; same machine, same clock).
 */
export async function driveFanout(
  server: RunningServer,
  options: {
    sseClients: number;
    wsClients: number;
    apiKey: string;
    events: number;
    ratePerSec: number;
    write: () => Promise<number>;
  },
): Promise<FanoutResult> {
  const base = new URL(server.baseUrl);
  // The driver is one process receiving every client's copy of each event, on the server's machine: its handlers
  // only stamp and keep what arrives (parsing 1,200 copies as they came in delayed the last ones by tens of ms,
  // which measured the driver, not Ferry). Frames are parsed after the run.
  const sseChunks: { at: number; text: string }[][] = [];
  const wsMessages: { at: number; raw: unknown }[] = [];
  let receipts = 0;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const sseRequests: http.ClientRequest[] = [];
  let connectedSse = 0;
  let connectedWs = 0;
  let counting = false;

  // Every phase is bounded: a server that stops answering must fail the scenario, not hang the bench.
  const bounded = (work: Promise<unknown>, ms: number) =>
    Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  await bounded(
    Promise.all(
      Array.from(
        { length: options.sseClients },
        () =>
          new Promise<void>((resolve) => {
            const req = http.get(
              {
                host: base.hostname,
                port: base.port,
                path: '/api/public/stream',
                agent,
                headers: { accept: 'text/event-stream' },
              },
              (res) => {
                if (res.statusCode !== 200) {
                  res.resume();
                  return resolve();
                }
                connectedSse++;
                resolve();
                const chunks: { at: number; text: string }[] = [];
                sseChunks.push(chunks);
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => {
                  if (!counting) return;
                  chunks.push({ at: Date.now(), text: chunk });
                  for (let i = chunk.indexOf(MARK); i >= 0; i = chunk.indexOf(MARK, i + 1)) receipts++;
                });
              },
            );
            req.on('error', () => resolve());
            sseRequests.push(req);
          }),
      ),
    ),
    60_000,
  );

  const sockets: WebSocket[] = [];
  await bounded(
    Promise.all(
      Array.from(
        { length: options.wsClients },
        () =>
          new Promise<void>((resolve) => {
            const socket = new WebSocket(`ws://${base.host}/ws`, {
              headers: { 'x-api-key': options.apiKey },
            });
            sockets.push(socket);
            socket.on('open', () => socket.send(JSON.stringify({ op: 'subscribe', channels: ['public'] })));
            socket.on('message', (raw) => {
              if (counting) {
                wsMessages.push({ at: Date.now(), raw });
                receipts++;
                return;
              }
              const message = JSON.parse(String(raw));
              if (message.op === 'subscribed') {
                connectedWs++;
                resolve();
              } else if (message.op === 'error') {
                resolve();
              }
            });
            socket.on('error', () => resolve());
            socket.on('close', () => resolve());
          }),
      ),
    ),
    60_000,
  );

  const window = startProcWindow(server.pid);
  const rssWithClients = rssBytes(server.pid);
  counting = true;
  const interval = 1000 / options.ratePerSec;
  const t0 = Date.now();
  let written = 0;
  for (let i = 0; i < options.events; i++) {
    const due = t0 + i * interval;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const status = await options.write().catch(() => 0);
    if (status === 201) written++;
    else if (status === 0) break; // the server stopped answering: report what arrived
  }
  // Let the last events arrive.
  const expected = written * (connectedSse + connectedWs);
  const until = Date.now() + 5000;
  while (receipts < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const proc = window.stop();
  counting = false;
  // SSE frames may arrive split over chunks: every event's frame was sent in one write, but it is cut here anyway.
  const sseLat = sseChunks.flatMap(sseLatencies);
  const wsLat = wsMessages.flatMap(({ at, raw }) => {
    const message = JSON.parse(String(raw));
    return message.op === 'event' && message.event?.type === 'quoteRequest.created'
      ? [LATENCY_OF(message.event, at)]
      : [];
  });

  for (const req of sseRequests) req.destroy();
  for (const socket of sockets) socket.terminate();
  agent.destroy();

  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
  };
  return {
    sseClients: options.sseClients,
    wsClients: options.wsClients,
    connectedSse,
    connectedWs,
    events: written,
    expectedReceipts: expected,
    receipts: sseLat.length + wsLat.length,
    sse: stats(sseLat),
    ws: stats(wsLat),
    all: stats([...sseLat, ...wsLat]),
    cpuPercent: proc.cpuPercent,
    peakRssBytes: proc.peakRssBytes,
    rssWithClientsBytes: rssWithClients,
  };
}
