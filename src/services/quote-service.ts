import { randomBytes } from 'node:crypto';
import type { Address } from '../domain/address.ts';
import { exceedsPremium, parseAmount } from '../domain/amount.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import { unixSeconds } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { effectiveQuoteRequestStatus, effectiveQuoteStatus, type QuoteStatus } from '../domain/lifecycle.ts';
import { buildOrderTypedData, hashOrderTypedData } from '../domain/order-typed-data.ts';
import { type PageRequest, toPage } from '../domain/pagination.ts';
import type { Principal } from '../domain/principal.ts';
import { publicQuoteView } from '../domain/public-views.ts';
import type { Quote, QuoteRequest } from '../domain/records.ts';
import { findAccount } from '../store/accounts-store.ts';
import type { StoreTransaction } from '../store/db-types.ts';
import { lpCommitted } from '../store/lp-commitments-store.ts';
import {
  findQuoteRequest,
  findQuoteRequests,
  markQuoteRequestAccepted,
} from '../store/quote-requests-store.ts';
import {
  declineActiveQuotes,
  expireStaleQuoteOfProvider,
  findQuote,
  insertQuote,
  listQuotes,
  setQuoteStatus,
} from '../store/quotes-store.ts';
import { UniqueViolationError } from '../store/store-errors.ts';
import type { ServiceDeps } from './service-deps.ts';

export interface QuoteWithRequest {
  readonly quote: Quote;
  readonly request: QuoteRequest;
}

export function createQuoteService(deps: ServiceDeps) {
  const { database, clock, registry, config, chains, chainClock } = deps;

  /**
   * An LP could otherwise win a request with an absurd price it never means to fill, locking the offerer's funds
   * until the deadline.
   */
  function checkPremium(request: QuoteRequest, outputAmount: bigint): void {
    const inToken = registry.token(request.inputChain, request.inputToken);
    const outToken = registry.token(request.outputChain, request.outputToken);
    if (!inToken || !outToken) {
      throw fieldError(
        'INVALID_TOKEN',
        'body.quoteRequestId',
        'the request names a token that is no longer supported',
      );
    }
    const input = { amount: request.inputAmount, decimals: inToken.decimals };
    if (
      exceedsPremium(input, { amount: outputAmount, decimals: outToken.decimals }, config.maxQuotePremiumBps)
    ) {
      throw fieldError(
        'VALIDATION_ERROR',
        'body.outputAmount',
        `must not exceed the input amount by more than ${config.maxQuotePremiumBps} bps (in the input token's decimals)`,
      );
    }
  }

  /**
   * A quote the LP's fill address cannot cover would lock the offerer's funds until the deadline for nothing. It
   * must cover this quote together with what the LP already promised on that chain and token (its active quotes,
   * its accepted quotes not yet swapped, its unfilled orders): `held` is read before the transaction, the promises
   * inside it.
   */
  async function checkCoverage(
    trx: StoreTransaction,
    input: {
      request: QuoteRequest;
      lpAccountId: string;
      filler: Address;
      held: bigint;
      outputAmount: bigint;
    },
  ): Promise<void> {
    const { request, filler, held, outputAmount } = input;
    const committed = await lpCommitted(trx, database.dialect, {
      lpAccountId: input.lpAccountId,
      chain: request.outputChain,
      token: request.outputToken,
      nowSeconds: unixSeconds(clock.now()),
      // An accepted quote's swap may come until its deposit window closes (openDeadline is endTime + openWindow).
      acceptedSinceSeconds: unixSeconds(clock.now()) - config.openWindowSeconds,
    });
    if (held < committed + outputAmount) {
      throw fieldError(
        'INSUFFICIENT_BALANCE',
        'body.outputAmount',
        `the fill address ${filler} holds ${held} base units of the output token on ${request.outputChain}; ` +
          `${committed} of it is already promised to this liquidity provider's open quotes and unfilled orders, ` +
          `which leaves less than ${outputAmount}`,
      );
    }
  }

  async function loadVisible(principal: Principal, id: string): Promise<QuoteWithRequest> {
    const quote = await findQuote(database.db, id);
    const request = quote ? await findQuoteRequest(database.db, quote.quoteRequestId) : null;
    const visible =
      quote !== null &&
      request !== null &&
      (principal.accountType === 'liquidityProvider'
        ? quote.liquidityProviderId === principal.accountId
        : request.accountId === principal.accountId);
    if (!visible) throw fieldError('QUOTE_NOT_FOUND', 'params.id', `quote ${id} does not exist`);
    return { quote, request };
  }

  return {
    /** A liquidity provider prices an open request; the quote carries the typed data the offerer will sign. */
    async create(
      principal: Principal,
      input: { quoteRequestId: string; outputAmount: string; validFor?: number },
    ) {
      const outputAmount = parseAmount(input.outputAmount, 'body.outputAmount');
      const request = await findQuoteRequest(database.db, input.quoteRequestId);
      if (!request) {
        throw fieldError(
          'QUOTE_REQUEST_NOT_FOUND',
          'body.quoteRequestId',
          `quote request ${input.quoteRequestId} does not exist`,
        );
      }
      const now = clock.now();
      if (effectiveQuoteRequestStatus(request.status, request.expiresAt, now) !== 'open') {
        throw fieldError(
          'QUOTE_REQUEST_CLOSED',
          'body.quoteRequestId',
          'the quote request is no longer open',
        );
      }
      const account = await findAccount(database.db, principal.accountId);
      if (!account?.address) {
        throw new AppError(
          'FORBIDDEN',
          'this liquidity provider account has no fill address; ask the operator to set one',
        );
      }
      const inputChain = registry.chain(request.inputChain);
      const outputChain = registry.chain(request.outputChain);
      if (!inputChain || !outputChain) {
        throw fieldError(
          'INVALID_CHAIN',
          'body.quoteRequestId',
          `the request names a chain that is no longer supported; supported chains: ${registry.chains.map((c) => c.name).join(', ')}`,
        );
      }
      checkPremium(request, outputAmount);
      const filler = account.address as Address;
      const held = await chains.balanceOf(request.outputChain, request.outputToken, filler, outputAmount);
      if (held < outputAmount) {
        throw fieldError(
          'INSUFFICIENT_BALANCE',
          'body.outputAmount',
          `the fill address ${filler} holds ${held} base units of the output token on ${request.outputChain}, less than ${outputAmount}`,
        );
      }
      const validFor = input.validFor ?? config.quoteValiditySeconds;
      const startTime = unixSeconds(now);
      const endTime = startTime + validFor;
      // The contracts compare deadlines with block.timestamp, so they count from each chain's clock: the deposit
      // on the input chain's, the fill on the later of both (it must still hold on the output chain, and refund
      // opens on the input chain only after it).
      const inputNow = chainClock.now(request.inputChain);
      const bothNow = Math.max(inputNow, chainClock.now(request.outputChain));
      const openDeadline = inputNow + validFor + config.openWindowSeconds;
      const fillDeadline = bothNow + validFor + config.openWindowSeconds + config.fillWindowSeconds;
      const typedData = buildOrderTypedData(
        {
          offerer: request.offerer,
          recipient: request.recipient,
          inputToken: request.inputToken,
          outputToken: request.outputToken,
          inputAmount: request.inputAmount,
          outputAmount,
          inputChainId: BigInt(inputChain.chainId),
          outputChainId: BigInt(outputChain.chainId),
          filler,
          nonce: BigInt(`0x${randomBytes(16).toString('hex')}`),
          openDeadline: BigInt(openDeadline),
          fillDeadline: BigInt(fillDeadline),
        },
        inputChain.contracts.escrow,
      );
      const quote: Quote = {
        id: newId('q', now),
        quoteRequestId: request.id,
        liquidityProviderId: principal.accountId,
        orderId: newId('ord', now),
        outputAmount,
        startTime,
        endTime,
        signingHash: hashOrderTypedData(typedData),
        typedData,
        status: 'active',
        createdAt: now,
        updatedAt: now,
      };
      try {
        await database.transaction(async (trx, uow) => {
          const stale = await expireStaleQuoteOfProvider(trx, request.id, principal.accountId, now);
          await checkCoverage(trx, { request, lpAccountId: principal.accountId, filler, held, outputAmount });
          await insertQuote(trx, quote);
          for (const old of stale) {
            uow.emit({
              type: 'quote.expired',
              occurredAt: now,
              data: publicQuoteView(old, request, now),
              accountIds: [principal.accountId, request.accountId],
            });
          }
          uow.emit({
            type: 'quote.created',
            occurredAt: now,
            data: publicQuoteView(quote, request, now),
            accountIds: [principal.accountId, request.accountId],
          });
        });
      } catch (error) {
        if (error instanceof UniqueViolationError) {
          throw fieldError(
            'CONFLICT',
            'body.quoteRequestId',
            'this liquidity provider already has an active quote on the request; it may quote again once that one ends',
            { cause: error },
          );
        }
        throw error;
      }
      return { quote, request };
    },

    get: loadVisible,

    async list(
      principal: Principal,
      query: { quoteRequestId: string | null; status: QuoteStatus | null },
      page: PageRequest,
    ) {
      const isLp = principal.accountType === 'liquidityProvider';
      const now = clock.now();
      const result = await listQuotes(
        database.db,
        {
          requestOwnerId: isLp ? null : principal.accountId,
          liquidityProviderId: isLp ? principal.accountId : null,
          quoteRequestId: query.quoteRequestId,
          status: query.status,
          now,
        },
        page,
      );
      const requests = await findQuoteRequests(
        database.db,
        result.items.map((quote) => quote.quoteRequestId),
      );
      const items = result.items.flatMap((quote) => {
        const request = requests.get(quote.quoteRequestId);
        return request ? [{ quote, request }] : [];
      });
      return toPage(items, result.total, page);
    },

    /**
     * Accepts one quote and declines every other active quote of its request, in one transaction.
     * The conditional update of the request is the arbiter: of concurrent accepts exactly one moves it.
     */
    async accept(principal: Principal, id: string) {
      const { quote, request } = await loadVisible(principal, id);
      const now = clock.now();
      const status = effectiveQuoteStatus(quote.status, quote.endTime, now);
      if (status === 'expired') throw fieldError('QUOTE_EXPIRED', 'params.id', 'the quote has expired');
      if (status !== 'active')
        throw fieldError('QUOTE_NOT_ACTIVE', 'params.id', `the quote is ${status}, not active`);
      if (effectiveQuoteRequestStatus(request.status, request.expiresAt, now) !== 'open') {
        throw fieldError('QUOTE_REQUEST_CLOSED', 'params.id', 'the quote request is no longer open');
      }
      const outcome = await database.transaction(async (trx, uow) => {
        if (!(await markQuoteRequestAccepted(trx, request.id, quote.id, now))) return null;
        if (!(await setQuoteStatus(trx, quote.id, 'active', 'accepted', now))) {
          throw fieldError('QUOTE_NOT_ACTIVE', 'params.id', 'the quote is no longer active');
        }
        const declined = await declineActiveQuotes(trx, request.id, now);
        const accepted: Quote = { ...quote, status: 'accepted', updatedAt: now };
        const acceptedRequest: QuoteRequest = {
          ...request,
          status: 'accepted',
          acceptedQuoteId: quote.id,
          updatedAt: now,
        };
        uow.emit({
          type: 'quote.accepted',
          occurredAt: now,
          data: publicQuoteView(accepted, request, now),
          accountIds: [request.accountId, quote.liquidityProviderId],
        });
        for (const d of declined) {
          uow.emit({
            type: 'quote.declined',
            occurredAt: now,
            data: publicQuoteView(d, request, now),
            accountIds: [request.accountId, d.liquidityProviderId],
          });
        }
        return { accepted, request: acceptedRequest, declined };
      });
      if (!outcome)
        throw fieldError('QUOTE_REQUEST_CLOSED', 'params.id', 'another quote of this request was accepted');
      return outcome;
    },
  };
}

export type QuoteService = ReturnType<typeof createQuoteService>;
