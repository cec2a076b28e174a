import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import type { Address } from './address.ts';
import { orderFromAcceptedQuote } from './order-from-quote.ts';
import { buildOrderTypedData, hashOrderTypedData } from './order-typed-data.ts';
import type { Quote, QuoteRequest } from './records.ts';

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const FILLER = getAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed') as Address;

describe('order from an accepted quote', () => {
  it('takes the request terms, the quote output, the signed filler (checksummed) and deadlines', () => {
    const now = new Date(5_000);
    const request: QuoteRequest = {
      id: 'qr_1',
      accountId: 'acc_mm',
      offerer: a(1),
      recipient: a(2),
      inputToken: a(3),
      outputToken: a(4),
      inputAmount: 1_000n,
      inputChain: 'alpha',
      outputChain: 'beta',
      status: 'accepted',
      acceptedQuoteId: 'q_1',
      createdAt: now,
      updatedAt: now,
      expiresAt: now,
    };
    const typedData = buildOrderTypedData(
      {
        offerer: a(1),
        recipient: a(2),
        inputToken: a(3),
        outputToken: a(4),
        inputAmount: 1_000n,
        outputAmount: 990n,
        inputChainId: 1n,
        outputChainId: 2n,
        filler: FILLER.toLowerCase() as Address,
        nonce: 7n,
        openDeadline: 100n,
        fillDeadline: 200n,
        protocolFee: 1n,
        exclusivityDeadline: 150n,
      },
      a(9),
    );
    const quote: Quote = {
      id: 'q_1',
      quoteRequestId: 'qr_1',
      liquidityProviderId: 'acc_lp',
      orderId: 'ord_1',
      outputAmount: 990n,
      startTime: 1,
      endTime: 61,
      signingHash: hashOrderTypedData(typedData),
      typedData,
      status: 'accepted',
      createdAt: now,
      updatedAt: now,
    };
    const order = orderFromAcceptedQuote({ quote, request, signature: '0xabcd', actor: 'acc_mm', now });
    expect(order).toMatchObject({
      id: 'ord_1',
      quoteId: 'q_1',
      quoteRequestId: 'qr_1',
      blockchainOrderId: quote.signingHash,
      signature: '0xabcd',
      status: 'created',
      moneyMoverAccountId: 'acc_mm',
      liquidityProviderAccountId: 'acc_lp',
      inputAmount: 1_000n,
      outputAmount: 990n,
      inputChain: 'alpha',
      outputChain: 'beta',
      createdBy: 'acc_mm',
      completedAt: null,
      filler: FILLER,
      openDeadline: 100n,
      fillDeadline: 200n,
      protocolFee: 1n,
    });
  });
});
