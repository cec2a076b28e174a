import { type AppError, fieldError } from '../domain/app-error.ts';
import { acceptRefusal, type QuoteRefusal } from '../domain/lifecycle.ts';
import type { Principal } from '../domain/principal.ts';
import { publicQuoteView } from '../domain/public-views.ts';
import type { Quote, QuoteRequest } from '../domain/records.ts';
import { markQuoteRequestAccepted } from '../store/tables/quote-requests-store.ts';
import { declineActiveQuotes, setQuoteStatus } from '../store/tables/quotes-store.ts';
import type { QuoteReader } from './quote-reader.ts';
import type { ServiceDeps } from './service-deps.ts';

export interface AcceptedQuote {
  readonly accepted: Quote;
  readonly request: QuoteRequest;
  /** The request's other quotes, declined by this accept. */
  readonly declined: readonly Quote[];
}

/** The money mover picks one quote of its request. */
export interface QuoteAcceptance {
  /**
   * Accepts one quote and declines every other active quote of its request, in one transaction. The conditional
   * update of the request is the arbiter: of concurrent accepts exactly one moves it.
   */
  accept(principal: Principal, id: string): Promise<AcceptedQuote>;
}

function refusalError(refusal: QuoteRefusal): AppError {
  switch (refusal.code) {
    case 'QUOTE_EXPIRED':
      return fieldError('QUOTE_EXPIRED', 'params.id', 'the quote has expired');
    case 'QUOTE_NOT_ACTIVE':
      return fieldError('QUOTE_NOT_ACTIVE', 'params.id', `the quote is ${refusal.status}, not active`);
    case 'QUOTE_REQUEST_CLOSED':
      return fieldError('QUOTE_REQUEST_CLOSED', 'params.id', 'the quote request is no longer open');
  }
}

export function createQuoteAcceptance(
  deps: Pick<ServiceDeps, 'database' | 'clock'> & { readonly reader: QuoteReader },
): QuoteAcceptance {
  const { database, clock, reader } = deps;
  return {
    async accept(principal, id) {
      const { quote, request } = await reader.get(principal, id);
      const now = clock.now();
      const refusal = acceptRefusal(quote, request, now);
      if (refusal) throw refusalError(refusal);
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
