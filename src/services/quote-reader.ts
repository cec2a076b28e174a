import { fieldError } from '../domain/app-error.ts';
import type { QuoteStatus } from '../domain/lifecycle.ts';
import { type Page, type PageRequest, toPage } from '../domain/pagination.ts';
import type { Principal } from '../domain/principal.ts';
import type { Quote, QuoteRequest } from '../domain/records.ts';
import { findQuoteRequests } from '../store/tables/quote-requests-store.ts';
import { findQuoteWithRequest, listQuotes } from '../store/tables/quotes-store.ts';
import type { ServiceDeps } from './service-deps.ts';

export interface QuoteWithRequest {
  readonly quote: Quote;
  readonly request: QuoteRequest;
}

export interface QuoteListQuery {
  readonly quoteRequestId: string | null;
  readonly status: QuoteStatus | null;
}

/** Quotes as their two parties see them: the liquidity provider its own, the money mover those on its requests. */
export interface QuoteReader {
  get(principal: Principal, id: string): Promise<QuoteWithRequest>;
  list(principal: Principal, query: QuoteListQuery, page: PageRequest): Promise<Page<QuoteWithRequest>>;
}

export function createQuoteReader(deps: Pick<ServiceDeps, 'database' | 'clock'>): QuoteReader {
  const { database, clock } = deps;
  return {
    async get(principal, id) {
      const found = await findQuoteWithRequest(database.db, id);
      const visible =
        found !== null &&
        (principal.accountType === 'liquidityProvider'
          ? found.quote.liquidityProviderId === principal.accountId
          : found.request.accountId === principal.accountId);
      if (!visible) throw fieldError('QUOTE_NOT_FOUND', 'params.id', `quote ${id} does not exist`);
      return found;
    },

    async list(principal, query, page) {
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
  };
}
