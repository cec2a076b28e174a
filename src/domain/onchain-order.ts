import { normalizeAddress } from './address.ts';
import { newId } from './ids.ts';
import { isOpenToAnyFiller } from './open-filler.ts';
import { orderFromAcceptedQuote } from './order-from-quote.ts';
import { buildOrderTypedData, type OrderTerms } from './order-typed-data.ts';
import type { Order, Quote, QuoteRequest } from './records.ts';

/**
 * The account that holds what Ferry writes down for an order a wallet opened on chain: its request and accepted
 * quote (the order's terms, as the escrow took them). It has no keys, so nobody signs in as it.
 */
export const ONCHAIN_ACCOUNT_ID = 'acc_onchain';
export const ONCHAIN_ACCOUNT_NAME = 'orders opened on chain';

/** An escrow's `Open` event for an order Ferry has no row of: a wallet opened it with `open` (or `openFor`). */
export interface OnchainOpen {
  readonly chain: string;
  readonly escrow: `0x${string}`;
  readonly orderHash: `0x${string}`;
  readonly terms: OrderTerms;
  readonly txHash: `0x${string}`;
  readonly blockNumber: bigint;
  readonly logIndex: number;
}

/**
 * The rows of an order opened on chain, already deposited: a request and an accepted quote carrying its terms as
 * typed data (what the worker and liquidity providers read, as for any order), and the order itself with
 * `source: 'onchain'`. An order with no exclusive filler is open to any filler from the start.
 */
export function onchainOrderRecords(input: {
  readonly open: OnchainOpen;
  readonly outputChain: string;
  readonly now: Date;
}): { request: QuoteRequest; quote: Quote; order: Order } {
  const { open, now } = input;
  const { terms } = open;
  const typedData = buildOrderTypedData(terms, open.escrow);
  const seconds = Math.floor(now.getTime() / 1000);
  const requestId = newId('qr', now);
  const quoteId = newId('q', now);
  const request: QuoteRequest = {
    id: requestId,
    accountId: ONCHAIN_ACCOUNT_ID,
    offerer: normalizeAddress(terms.offerer, 'offerer'),
    recipient: normalizeAddress(terms.recipient, 'recipient'),
    inputToken: normalizeAddress(terms.inputToken, 'inputToken'),
    outputToken: normalizeAddress(terms.outputToken, 'outputToken'),
    inputAmount: terms.inputAmount,
    inputChain: open.chain,
    outputChain: input.outputChain,
    status: 'accepted',
    acceptedQuoteId: quoteId,
    createdAt: now,
    updatedAt: now,
    expiresAt: now,
  };
  const quote: Quote = {
    id: quoteId,
    quoteRequestId: requestId,
    liquidityProviderId: ONCHAIN_ACCOUNT_ID,
    orderId: newId('ord', now),
    outputAmount: terms.outputAmount,
    startTime: seconds,
    endTime: seconds,
    signingHash: open.orderHash,
    typedData,
    status: 'accepted',
    createdAt: now,
    updatedAt: now,
  };
  const accepted = orderFromAcceptedQuote({ quote, request, signature: '0x', actor: 'chain-indexer', now });
  const openFromStart = isOpenToAnyFiller(terms.filler);
  const order: Order = {
    ...accepted,
    status: 'deposited',
    srcChainTxHash: open.txHash,
    source: 'onchain',
    exclusivityLapsedAt: openFromStart ? now : null,
  };
  return { request, quote, order };
}
