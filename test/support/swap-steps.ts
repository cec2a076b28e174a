import { expect } from 'vitest';
import type { OrderTypedData } from '../../src/domain/order-typed-data.ts';
import type { Harness } from './harness.ts';

/** Runs request → quote → accept → sign → swap over HTTP and returns the order's ids and typed data. */
export async function executeSwap(
  h: Harness,
  parties: { mm: { apiKey: string }; lp: { apiKey: string } },
  amounts: { input: bigint; output: bigint },
) {
  const created = await h.http('POST', '/api/v1/quote-requests', {
    apiKey: parties.mm.apiKey,
    body: {
      recipient: h.otherWallet.address,
      offerer: h.offerer.address,
      inputToken: h.usdcA,
      outputToken: h.usdcB,
      inputAmount: amounts.input.toString(),
      inputChain: h.chainA,
      outputChain: h.chainB,
    },
  });
  expect(created.status).toBe(201);
  const quote = await h.http('POST', '/api/v1/quotes', {
    apiKey: parties.lp.apiKey,
    body: { quoteRequestId: created.body.data.quoteId, outputAmount: amounts.output.toString() },
  });
  expect(quote.status).toBe(201);
  const q = quote.body.data;
  const accepted = await h.http('POST', `/api/v1/quotes/${q.quoteId}/accept`, { apiKey: parties.mm.apiKey });
  expect(accepted.status).toBe(200);
  const signature = await h.offerer.signTypedData(q.typedData);
  const swap = await h.http('POST', '/api/v1/swaps', {
    apiKey: parties.mm.apiKey,
    body: { orderId: q.orderId, quoteId: q.quoteId, signature },
  });
  expect(swap.status).toBe(201);
  return {
    orderId: q.orderId as string,
    orderHash: swap.body.data.blockchainOrderId as `0x${string}`,
    openDeadline: BigInt(q.typedData.message.openDeadline),
    fillDeadline: BigInt(q.typedData.message.fillDeadline),
    typedData: q.typedData as OrderTypedData,
    signature,
  };
}

/** Polls an order until it reaches `status` (the worker runs in the background), or fails after `ms`. */
export async function waitForStatus(
  h: Harness,
  apiKey: string,
  orderId: string,
  status: string,
  ms = 20_000,
) {
  const deadline = Date.now() + ms;
  let last: any;
  while (Date.now() < deadline) {
    last = await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey });
    if (last.body?.data?.status === status) return last.body.data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`order ${orderId} did not reach ${status}; last: ${JSON.stringify(last?.body?.data)}`);
}
