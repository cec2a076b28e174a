import { randomBytes } from 'node:crypto';
import type { Address } from '../domain/address.ts';
import { parseAmount } from '../domain/amount.ts';
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
  const { database, clock, registry, config } = deps;

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
          'the request names a chain that is no longer supported',
        );
      }
      const startTime = unixSeconds(now);
      const endTime = startTime + (input.validFor ?? config.quoteValiditySeconds);
      const openDeadline = endTime + config.openWindowSeconds;
      const typedData = buildOrderTypedData(
        {
          offerer: request.offerer,
          recipient: request.recipient,
          inputToken: request.inputToken,
          outputToken: request.outputToken,
          inputAmount: request.inputAmount,
          outputAmount,
          inputChainId: inputChain.chainId,
          outputChainId: outputChain.chainId,
          filler: account.address as Address,
          nonce: BigInt(`0x${randomBytes(16).toString('hex')}`),
          openDeadline,
          fillDeadline: openDeadline + config.fillWindowSeconds,
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
