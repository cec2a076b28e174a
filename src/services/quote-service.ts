import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Principal } from '../domain/principal.ts';
import { type AcceptedQuote, createQuoteAcceptance } from './quote-acceptance.ts';
import { createQuoteCreation, type QuoteInput } from './quote-creation.ts';
import { createQuoteLimits } from './quote-limits.ts';
import { createQuoteReader, type QuoteListQuery, type QuoteWithRequest } from './quote-reader.ts';
import type { ServiceDeps } from './service-deps.ts';

/** Quotes: liquidity providers create them, both parties read them, the money mover accepts one. */
export interface QuoteService {
  /** A liquidity provider prices an open request (quote-creation.ts). */
  create(principal: Principal, input: QuoteInput): Promise<QuoteWithRequest>;
  /** One quote its principal may see, with its request; QUOTE_NOT_FOUND otherwise. */
  get(principal: Principal, id: string): Promise<QuoteWithRequest>;
  list(principal: Principal, query: QuoteListQuery, page: PageRequest): Promise<Page<QuoteWithRequest>>;
  /** Accepts one quote and declines the request's other active quotes (quote-acceptance.ts). */
  accept(principal: Principal, id: string): Promise<AcceptedQuote>;
}

export function createQuoteService(deps: ServiceDeps): QuoteService {
  const reader = createQuoteReader(deps);
  const creation = createQuoteCreation({ ...deps, limits: createQuoteLimits(deps) });
  const acceptance = createQuoteAcceptance({ ...deps, reader });
  return {
    create: creation.create,
    get: reader.get,
    list: reader.list,
    accept: acceptance.accept,
  };
}
