import http from 'node:http';
import WebSocket from 'ws';
import { percentile } from '../harness/percentile.ts';
import { rssBytes, startProcWindow } from '../harness/proc.ts';
import type { RunningServer } from '../harness/server.ts';

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

/** Counting switches on once every client is connected; receipts are counted as they arrive. */
interface Receipts {
  counting: boolean;
  count: number;
}

// Every phase is bounded: a server that stops answering must fail the scenario, not hang the bench.
const bounded = (work: Promise<unknown>, ms: number) =>
  Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms).unref())]);

/** `count` anonymous SSE streams; each keeps its chunks (with arrival times) once counting starts. */
async function connectSse(base: URL, count: number, receipts: Receipts) {
  const clients = {
    chunks: [] as { at: number; text: string }[][],
    requests: [] as http.ClientRequest[],
    connected: 0,
    agent: new http.Agent({ keepAlive: false, maxSockets: Infinity }),
  };
  const { agent } = clients;
  await bounded(
    Promise.all(
      Array.from(
        { length: count },
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
                clients.connected++;
                resolve();
                const chunks: { at: number; text: string }[] = [];
                clients.chunks.push(chunks);
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => {
                  if (!receipts.counting) return;
                  chunks.push({ at: Date.now(), text: chunk });
                  for (let i = chunk.indexOf(MARK); i >= 0; i = chunk.indexOf(MARK, i + 1)) receipts.count++;
                });
              },
            );
            req.on('error', () => resolve());
            clients.requests.push(req);
          }),
      ),
    ),
    60_000,
  );
  return clients;
}

/** `count` WebSocket subscribers of channel `public`; each keeps its messages once counting starts. */
async function connectWs(base: URL, count: number, apiKey: string, receipts: Receipts) {
  const clients = {
    messages: [] as { at: number; raw: unknown }[],
    sockets: [] as WebSocket[],
    connected: 0,
  };
  await bounded(
    Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<void>((resolve) => {
            const socket = new WebSocket(`ws://${base.host}/ws`, {
              headers: { 'x-api-key': apiKey },
            });
            clients.sockets.push(socket);
            socket.on('open', () => socket.send(JSON.stringify({ op: 'subscribe', channels: ['public'] })));
            socket.on('message', (raw) => {
              if (receipts.counting) {
                clients.messages.push({ at: Date.now(), raw });
                receipts.count++;
                return;
              }
              const message = JSON.parse(String(raw));
              if (message.op === 'subscribed') {
                clients.connected++;
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
  return clients;
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
  const receipts: Receipts = { counting: false, count: 0 };
  const sse = await connectSse(base, options.sseClients, receipts);
  const ws = await connectWs(base, options.wsClients, options.apiKey, receipts);

  const window = startProcWindow(server.pid);
  const rssWithClients = rssBytes(server.pid);
  receipts.counting = true;
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
  const expected = written * (sse.connected + ws.connected);
  const until = Date.now() + 5000;
  while (receipts.count < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const proc = window.stop();
  receipts.counting = false;
  // SSE frames may arrive split over chunks: every event's frame was sent in one write, but it is cut here anyway.
  const sseLat = sse.chunks.flatMap(sseLatencies);
  const wsLat = ws.messages.flatMap(({ at, raw }) => {
    const message = JSON.parse(String(raw));
    return message.op === 'event' && message.event?.type === 'quoteRequest.created'
      ? [LATENCY_OF(message.event, at)]
      : [];
  });

  for (const req of sse.requests) req.destroy();
  for (const socket of ws.sockets) socket.terminate();
  sse.agent.destroy();

  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
  };
  return {
    sseClients: options.sseClients,
    wsClients: options.wsClients,
    connectedSse: sse.connected,
    connectedWs: ws.connected,
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
