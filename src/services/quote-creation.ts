import { randomBytes } from 'node:crypto';
import type { Chain } from '../chains/chain-registry.ts';
import type { Address } from '../domain/address.ts';
import { parseAmount } from '../domain/amount.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import { newId } from '../domain/ids.ts';
import { isQuoteRequestOpen } from '../domain/lifecycle.ts';
import { buildOrderTypedData, hashOrderTypedData } from '../domain/order-typed-data.ts';
import type { Principal } from '../domain/principal.ts';
import { protocolFeeOf } from '../domain/protocol-fee.ts';
import { quoteTimes } from '../domain/quote-times.ts';
import type { Quote, QuoteRequest } from '../domain/records.ts';
import { findQuotingBasis } from '../store/tables/quotes-store.ts';
import type { QuoteLimits } from './quote-limits.ts';
import type { QuoteWithRequest } from './quote-reader.ts';
import { createQuoteWriter } from './quote-writer.ts';
import type { ServiceDeps } from './service-deps.ts';

export interface QuoteInput {
  readonly quoteRequestId: string;
  readonly outputAmount: string;
  /** Seconds; QUOTE_VALIDITY_SECONDS when absent. */
  readonly validFor?: number;
}

/** A liquidity provider prices an open request; the quote carries the typed data the offerer will sign. */
export interface QuoteCreation {
  create(principal: Principal, input: QuoteInput): Promise<QuoteWithRequest>;
}

/** What a new quote is built from, once every check before the transaction has passed. */
interface QuoteBasis {
  readonly principal: Principal;
  readonly request: QuoteRequest;
  readonly inputChain: Chain;
  readonly outputChain: Chain;
  readonly filler: Address;
  readonly outputAmount: bigint;
  readonly validFor: number;
  readonly now: Date;
}

/** The quote on `basis`: its times on both chains' clocks and the order's typed data, with a fresh nonce. */
function buildQuote(
  basis: QuoteBasis,
  chainClock: ServiceDeps['chainClock'],
  config: Pick<
    ServiceDeps['config'],
    'openWindowSeconds' | 'fillWindowSeconds' | 'exclusivitySeconds' | 'protocolFeeBps'
  >,
): Quote {
  const { request, now, validFor } = basis;
  const times = quoteTimes({
    now,
    validForSeconds: validFor,
    inputChainNow: chainClock.now(request.inputChain),
    outputChainNow: chainClock.now(request.outputChain),
    openWindowSeconds: config.openWindowSeconds,
    fillWindowSeconds: config.fillWindowSeconds,
    exclusivitySeconds: config.exclusivitySeconds,
  });
  const typedData = buildOrderTypedData(
    {
      offerer: request.offerer,
      recipient: request.recipient,
      inputToken: request.inputToken,
      outputToken: request.outputToken,
      inputAmount: request.inputAmount,
      outputAmount: basis.outputAmount,
      inputChainId: BigInt(basis.inputChain.chainId),
      outputChainId: BigInt(basis.outputChain.chainId),
      filler: basis.filler,
      nonce: BigInt(`0x${randomBytes(16).toString('hex')}`),
      openDeadline: BigInt(times.openDeadline),
      fillDeadline: BigInt(times.fillDeadline),
      protocolFee: protocolFeeOf(request.inputAmount, config.protocolFeeBps),
      exclusivityDeadline: BigInt(times.exclusivityDeadline),
    },
    basis.inputChain.contracts.escrow,
  );
  return {
    id: newId('q', now),
    quoteRequestId: request.id,
    liquidityProviderId: basis.principal.accountId,
    orderId: newId('ord', now),
    outputAmount: basis.outputAmount,
    startTime: times.startTime,
    endTime: times.endTime,
    signingHash: hashOrderTypedData(typedData),
    typedData,
    status: 'active',
    createdAt: now,
    updatedAt: now,
  };
}

export function createQuoteCreation(deps: ServiceDeps & { readonly limits: QuoteLimits }): QuoteCreation {
  const { database, clock, registry, config, chains, chainClock, limits } = deps;
  const writer = createQuoteWriter(deps);

  /** The open request `id` and the LP's fill address, read together (one round trip). */
  async function basisOf(id: string, principal: Principal, now: Date) {
    const found = await findQuotingBasis(database.db, id, principal.accountId);
    if (!found) {
      throw fieldError(
        'QUOTE_REQUEST_NOT_FOUND',
        'body.quoteRequestId',
        `quote request ${id} does not exist`,
      );
    }
    if (!isQuoteRequestOpen(found.request, now)) {
      throw fieldError('QUOTE_REQUEST_CLOSED', 'body.quoteRequestId', 'the quote request is no longer open');
    }
    if (!found.lpAddress) {
      throw new AppError(
        'FORBIDDEN',
        'this liquidity provider account has no fill address; ask the operator to set one',
      );
    }
    return { request: found.request, filler: found.lpAddress as Address };
  }

  function chainsOf(request: QuoteRequest) {
    const inputChain = registry.chain(request.inputChain);
    const outputChain = registry.chain(request.outputChain);
    if (!inputChain || !outputChain) {
      throw fieldError(
        'INVALID_CHAIN',
        'body.quoteRequestId',
        `the request names a chain that is no longer supported; supported chains: ${registry.chains.map((c) => c.name).join(', ')}`,
      );
    }
    return { inputChain, outputChain };
  }

  return {
    async create(principal, input) {
      const outputAmount = parseAmount(input.outputAmount, 'body.outputAmount');
      const now = clock.now();
      const { request, filler } = await basisOf(input.quoteRequestId, principal, now);
      const { inputChain, outputChain } = chainsOf(request);
      limits.checkPremium(request, outputAmount);
      const held = await chains.balanceOf(request.outputChain, request.outputToken, filler, outputAmount);
      if (held < outputAmount) {
        throw fieldError(
          'INSUFFICIENT_BALANCE',
          'body.outputAmount',
          `the fill address ${filler} holds ${held} base units of the output token on ${request.outputChain}, less than ${outputAmount}`,
        );
      }
      const validFor = input.validFor ?? config.quoteValiditySeconds;
      const basis = { principal, request, inputChain, outputChain, filler, outputAmount, validFor, now };
      const quote = buildQuote(basis, chainClock, config);
      const coverage = { request, lpAccountId: principal.accountId, filler, held, outputAmount };
      try {
        await writer.write({ quote, request, coverage, now });
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'INSUFFICIENT_BALANCE')) throw error;
        // The reading covered this quote alone and may be a cached one from before a top-up (the LP bot quotes
        // again after its balance grew): as for quote requests, read the chain unless a younger reading holds
        // more, and judge once more before refusing.
        const fresh = await chains.balanceOf(request.outputChain, request.outputToken, filler, held + 1n);
        if (fresh <= held) throw error;
        await writer.write({ quote, request, coverage: { ...coverage, held: fresh }, now });
      }
      return { quote, request };
    },
  };
}
