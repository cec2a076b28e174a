import { sameAddress } from '../domain/address.ts';
import { fieldError } from '../domain/app-error.ts';
import { newId } from '../domain/ids.ts';
import { type QuoteRequestStatus, quoteRequestExpiresAt } from '../domain/lifecycle.ts';
import { type Page, type PageRequest, toPage } from '../domain/pagination.ts';
import type { Principal } from '../domain/principal.ts';
import { publicQuoteRequestView } from '../domain/public-views.ts';
import type { QuoteRequest } from '../domain/records.ts';
import { findQuoteRequest, listQuoteRequests } from '../store/tables/quote-requests-store.ts';
import { type QuoteRequestInput, validateQuoteRequestTerms } from './quote-request-terms.ts';
import { createQuoteRequestWriter } from './quote-request-writer.ts';
import type { ServiceDeps } from './service-deps.ts';

export interface QuoteRequestService {
  /** Creates an open quote request after checking the offerer can actually pay it. */
  create(principal: Principal, input: QuoteRequestInput): Promise<QuoteRequest>;
  /** Money movers see their own requests; liquidity providers see any (they quote on them). */
  get(principal: Principal, id: string): Promise<QuoteRequest>;
  /** A page of the requests of the last `timeWindow` seconds (a liquidity provider's default: the open ones). */
  list(
    principal: Principal,
    query: { timeWindow: number; status: QuoteRequestStatus | null },
    page: PageRequest,
  ): Promise<Page<QuoteRequest>>;
}

export function createQuoteRequestService(deps: ServiceDeps): QuoteRequestService {
  const { database, clock, registry, chains, config } = deps;
  const write = createQuoteRequestWriter(deps);

  return {
    async create(principal: Principal, input: QuoteRequestInput): Promise<QuoteRequest> {
      const terms = validateQuoteRequestTerms(registry, input);
      if (terms.inputChain === terms.outputChain) {
        throw fieldError(
          'VALIDATION_ERROR',
          'body.outputChain',
          'must differ from inputChain: Ferry swaps across chains',
        );
      }
      if (principal.sessionAddress !== null && !sameAddress(principal.sessionAddress, terms.offerer)) {
        throw fieldError('FORBIDDEN', 'body.offerer', 'must be the signed-in wallet address');
      }
      const now = clock.now();
      // A reading that covers this request alone, often cached: the common case then needs no read before the
      // statement that judges the offerer's open requests together and inserts (RPC never runs in a transaction).
      let balance = await chains.balanceOf(
        terms.inputChain,
        terms.inputToken,
        terms.offerer,
        terms.inputAmount,
      );
      if (balance < terms.inputAmount) {
        throw fieldError(
          'INSUFFICIENT_BALANCE',
          'body.inputAmount',
          `offerer holds ${balance} base units of the input token, less than ${terms.inputAmount}`,
        );
      }
      const qr: QuoteRequest = {
        ...terms,
        id: newId('qr', now),
        accountId: principal.accountId,
        status: 'open',
        acceptedQuoteId: null,
        createdAt: now,
        updatedAt: now,
        expiresAt: quoteRequestExpiresAt(now, config.quoteRequestTtlSeconds),
      };
      const created = {
        type: 'quoteRequest.created' as const,
        occurredAt: now,
        data: publicQuoteRequestView(qr),
        accountIds: [principal.accountId],
      };
      let open = await write({ qr, event: created, balance });
      if (open !== null) {
        // The reading did not cover the open requests too: read the chain unless a younger reading covers them
        // all (a short reading is never trusted), and judge once more.
        const needed = open + terms.inputAmount;
        balance = await chains.balanceOf(terms.inputChain, terms.inputToken, terms.offerer, needed);
        if (balance >= needed) open = await write({ qr, event: created, balance });
      }
      if (open !== null) {
        throw fieldError(
          'INSUFFICIENT_BALANCE',
          'body.inputAmount',
          `offerer holds ${balance} base units of the input token; its open quote requests already ask for ` +
            `${open} of it, which leaves less than ${terms.inputAmount}`,
        );
      }
      return qr;
    },

    async get(principal: Principal, id: string): Promise<QuoteRequest> {
      const qr = await findQuoteRequest(database.db, id);
      if (!qr || (principal.accountType === 'moneyMover' && qr.accountId !== principal.accountId)) {
        throw fieldError('QUOTE_REQUEST_NOT_FOUND', 'params.id', `quote request ${id} does not exist`);
      }
      return qr;
    },

    async list(
      principal: Principal,
      query: { timeWindow: number; status: QuoteRequestStatus | null },
      page: PageRequest,
    ) {
      const now = clock.now();
      const isLp = principal.accountType === 'liquidityProvider';
      const result = await listQuoteRequests(
        database.db,
        {
          accountId: isLp ? null : principal.accountId,
          createdAfter: new Date(now.getTime() - query.timeWindow * 1000),
          // Liquidity providers look for work: unless they ask otherwise, they get the open requests.
          status: query.status ?? (isLp ? 'open' : null),
          now,
        },
        page,
      );
      return toPage(result.items, result.total, page);
    },
  };
}
