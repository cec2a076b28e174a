/**
 * Scenario 7: one write fanned out to SSE and WebSocket clients of Ferry, against the same clients, rate and event
 * body on a bare node:http fan-out in the same run.
 */

import { mb, QUICK, say } from '../harness/bench-settings.ts';
import type { ScenarioContext } from '../harness/scenario.ts';
import { startBareFanout } from '../harness/server.ts';
import { driveFanout, type FanoutResult } from './fan-out-driver.ts';

export async function fanOut({
  server,
  accounts,
  mmKey,
  quoteRequestBody,
  record,
}: ScenarioContext): Promise<void> {
  const streams = await fetch(`${server.baseUrl}/openapi.json`).then(
    (res) => res.json() as Promise<{ paths: Record<string, unknown> }>,
  );
  if (!streams.paths['/api/public/stream']) {
    say('   7 skipped: GET /api/public/stream does not exist');
  } else {
    let lastEventData: unknown = null;
    const write = async () => {
      const res = await fetch(`${server.baseUrl}/api/v1/quote-requests`, {
        signal: AbortSignal.timeout(10_000),
        method: 'POST',
        headers: { 'content-type': 'application/json', ...mmKey },
        body: JSON.stringify(quoteRequestBody),
      });
      const body = (await res.json().catch(() => null)) as { data?: { quoteRequest?: unknown } } | null;
      lastEventData = body?.data?.quoteRequest ?? lastEventData;
      return res.status;
    };
    const shape = {
      sseClients: QUICK ? 200 : 1000,
      wsClients: QUICK ? 50 : 200,
      apiKey: accounts.moneyMover.apiKey,
      events: QUICK ? 40 : 100,
      ratePerSec: 50,
    };
    const f = await driveFanout(server, { ...shape, write });
    // The same clients, rate and event body against a bare node:http fan-out, in the same run.
    const bare = await startBareFanout();
    let b: FanoutResult;
    try {
      b = await driveFanout(bare, {
        ...shape,
        write: async () => {
          const res = await fetch(`${bare.baseUrl}/publish`, {
            signal: AbortSignal.timeout(10_000),
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ type: 'quoteRequest.created', data: lastEventData }),
          });
          await res.arrayBuffer();
          return res.status;
        },
      });
    } finally {
      await bare.stop();
    }
    const complete = (r: FanoutResult) =>
      r.connectedSse === r.sseClients && r.connectedWs === r.wsClients && r.receipts === r.expectedReceipts;
    const p99Ratio = f.all.p99Ms / Math.max(1, b.all.p99Ms);
    record({
      id: '7',
      name: `fan-out: ${f.sseClients} SSE + ${f.wsClients} WS, write → receipt`,
      unit: 'events/s',
      rate: 50,
      p50Ms: f.all.p50Ms,
      p99Ms: f.all.p99Ms,
      cpuPercent: f.cpuPercent,
      peakRssMb: mb(f.peakRssBytes),
      ratio: null,
      vs: { ratio: p99Ratio, of: 'bare p99' },
      target: 'p99 ≤ 1.5 × bare fan-out p99',
      pass: complete(f) && complete(b) && p99Ratio <= 1.5,
      notes: `Ferry: SSE p50/p99 ${f.sse.p50Ms}/${f.sse.p99Ms} ms, WS ${f.ws.p50Ms}/${f.ws.p99Ms} ms; connected ${f.connectedSse} SSE, ${f.connectedWs} WS; ${f.receipts}/${f.expectedReceipts} receipts of ${f.events} events; RSS with clients connected ${mb(f.rssWithClientsBytes).toFixed(0)} MB. Bare node:http fan-out, same clients and events: p50/p99 ${b.all.p50Ms}/${b.all.p99Ms} ms (SSE ${b.sse.p99Ms}, WS ${b.ws.p99Ms} ms p99), ${b.receipts}/${b.expectedReceipts} receipts, CPU ${b.cpuPercent.toFixed(0)} %; p99 ratio ${p99Ratio.toFixed(2)} (a bare p99 under 1 ms counts as 1 ms).`,
      raw: { ferry: f, bare: b },
    });
  }
}
