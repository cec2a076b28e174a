import { sameAddress } from '../domain/address.ts';
import { fieldError } from '../domain/app-error.ts';
import { newId } from '../domain/ids.ts';
import { type QuoteRequestStatus, quoteRequestExpiresAt } from '../domain/lifecycle.ts';
import { type Page, type PageRequest, toPage } from '../domain/pagination.ts';
import type { Principal } from '../domain/principal.ts';
import { publicQuoteRequestView } from '../domain/public-views.ts';
import type { QuoteRequest } from '../domain/records.ts';
import { lockOffererFunds } from '../store/offerer-lock.ts';
import {
  findQuoteRequest,
  listQuoteRequests,
  openRequestedInput,
  quoteRequestInsert,
} from '../store/quote-requests-store.ts';
import { type QuoteRequestInput, validateQuoteRequestTerms } from './quote-request-terms.ts';
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
      const funds = { chain: terms.inputChain, token: terms.inputToken, offerer: terms.offerer };
      const now = clock.now();
      // Read before the transaction (no RPC inside one), for the balance reading to cover; judged again inside.
      const asked = await openRequestedInput(database.db, funds, now);
      const balance = await chains.balanceOf(
        terms.inputChain,
        terms.inputToken,
        terms.offerer,
        asked + terms.inputAmount,
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
      await database.transaction(async (trx, uow) => {
        await lockOffererFunds(trx, database.dialect, funds);
        const open = await openRequestedInput(trx, funds, now);
        if (balance < open + terms.inputAmount) {
          throw fieldError(
            'INSUFFICIENT_BALANCE',
            'body.inputAmount',
            `offerer holds ${balance} base units of the input token; its open quote requests already ask for ` +
              `${open} of it, which leaves less than ${terms.inputAmount}`,
          );
        }
        await trx.executeQuery(quoteRequestInsert(qr)(trx));
        uow.emit({
          type: 'quoteRequest.created',
          occurredAt: now,
          data: publicQuoteRequestView(qr),
          accountIds: [principal.accountId],
        });
      });
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
