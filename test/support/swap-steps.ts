import { expect } from 'vitest';
import type { OrderTypedData } from '../../src/domain/order-typed-data.ts';
import { approveEscrow } from './chain-actors.ts';
import { createQuoteRequest } from './fixtures.ts';
import type { Harness } from './harness.ts';
import { until } from './polling.ts';

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
  const swap = await acceptAndSwap(h, parties.mm.apiKey, quote.body.data);
  return {
    ...swap,
    openDeadline: BigInt(swap.typedData.message.openDeadline),
    fillDeadline: BigInt(swap.typedData.message.fillDeadline),
  };
}

/** The money mover's side of a quote: accept it, sign its typed data as the offerer, and execute the swap. */
export async function acceptAndSwap(
  h: Harness,
  apiKey: string,
  quote: { quoteId: string; orderId: string; typedData: any },
) {
  const accepted = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey });
  expect(accepted.status).toBe(200);
  const signature = await h.offerer.signTypedData(quote.typedData);
  const swap = await h.http('POST', '/api/v1/swaps', {
    apiKey,
    body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
  });
  expect(swap.status).toBe(201);
  return {
    orderId: quote.orderId,
    orderHash: swap.body.data.blockchainOrderId as `0x${string}`,
    typedData: quote.typedData as OrderTypedData,
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

/**
 * A new request of `input`, quoted by the liquidity provider `lp` (a bot running on its own), accepted and signed
 * by the offerer, whose approval of the escrow is set first: the order waits for its deposit.
 */
export async function swapWithRunningLp(
  h: Harness,
  mm: { apiKey: string },
  lp: { id: string },
  input: bigint,
) {
  await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
  const qrId = await createQuoteRequest(h, mm.apiKey, { inputAmount: input.toString() });
  const quote = await until('the bot to quote', async () => {
    const res = await h.http('GET', `/api/v1/quotes?quoteRequestId=${qrId}&status=active`, {
      apiKey: mm.apiKey,
    });
    return (res.body.data?.quotes as any[])?.find((q) => q.liquidityProviderId === lp.id);
  });
  const envelope = (await h.http('GET', `/api/v1/quotes/${quote.id}`, { apiKey: mm.apiKey })).body.data;
  return { qrId, ...(await acceptAndSwap(h, mm.apiKey, envelope)) };
}
