import { hashOrderTypedData, type OrderTypedData } from '../../src/domain/order-typed-data.ts';
import { type JsonResponse, jsonClient } from '../harness/json-client.ts';
import { percentile } from '../harness/percentile.ts';
import { startProcWindow } from '../harness/proc.ts';
import type { RunningServer } from '../harness/server.ts';
import { OFFERER, signDigest } from '../seed/seeder.ts';

export interface FlowResult {
  readonly flowsPerSec: number;
  readonly flows: number;
  readonly failures: number;
  readonly failureSample: string | null;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuPercent: number;
  readonly peakRssBytes: number;
  readonly helperCpuPercent: number;
}

/**
 * Scenario 6a: the whole flow, closed loop. Each of `concurrency` workers repeats: create a quote request
 * (money mover) → quote it (a liquidity provider) → accept → sign the returned EIP-712 typed data here, as the
 * offerer's wallet would (hash recomputed from the typed data, not taken from the server) → POST /api/v1/swaps.
 */
export async function driveFlow(
  server: RunningServer,
  options: {
    moneyMoverKey: string;
    lpKeys: readonly string[];
    route: { inputChain: string; outputChain: string; inputToken: string; outputToken: string };
    concurrency: number;
    durationSeconds: number;
  },
): Promise<FlowResult> {
  const client = jsonClient(server.baseUrl, options.concurrency * 2);
  const window = startProcWindow(server.pid, server.helperPids());
  const latencies: number[] = [];
  let failures = 0;
  let failureSample: string | null = null;
  let lp = 0;
  const deadline = Date.now() + options.durationSeconds * 1000;
  const started = process.hrtime.bigint();
  const fail = (step: string, res: JsonResponse) => {
    failures++;
    failureSample ??= `${step}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
  };

  async function one(): Promise<void> {
    const t0 = process.hrtime.bigint();
    const mm = options.moneyMoverKey;
    const qr = await client.request('POST', '/api/v1/quote-requests', mm, {
      offerer: OFFERER,
      recipient: OFFERER,
      inputToken: options.route.inputToken,
      outputToken: options.route.outputToken,
      inputAmount: '250000000',
      inputChain: options.route.inputChain,
      outputChain: options.route.outputChain,
    });
    if (qr.status !== 201) return fail('quote-request', qr);
    const lpKey = options.lpKeys[lp++ % options.lpKeys.length] as string;
    const quote = await client.request('POST', '/api/v1/quotes', lpKey, {
      quoteRequestId: qr.body.data.quoteId,
      outputAmount: '249500000',
    });
    if (quote.status !== 201) return fail('quote', quote);
    const { quoteId, orderId, typedData } = quote.body.data as {
      quoteId: string;
      orderId: string;
      typedData: OrderTypedData;
    };
    const accept = await client.request('POST', `/api/v1/quotes/${quoteId}/accept`, mm, { quoteId });
    if (accept.status !== 200) return fail('accept', accept);
    const signature = signDigest(hashOrderTypedData(typedData));
    const swap = await client.request('POST', '/api/v1/swaps', mm, { orderId, quoteId, signature });
    if (swap.status !== 201) return fail('swap', swap);
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }

  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (Date.now() < deadline) await one();
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const proc = window.stop();
  client.close();
  latencies.sort((a, b) => a - b);
  return {
    flowsPerSec: latencies.length / seconds,
    flows: latencies.length,
    failures,
    failureSample,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ...proc,
  };
}
