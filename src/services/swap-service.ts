import { sameAddress } from '../domain/address.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import { executeRefusal } from '../domain/lifecycle.ts';
import { orderFromAcceptedQuote } from '../domain/order-from-quote.ts';
import { canonicalSignature, recoverSigner } from '../domain/order-signature.ts';
import type { Principal } from '../domain/principal.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { Order } from '../domain/records.ts';
import { findOrderByQuote, orderInsert } from '../store/orders-store.ts';
import { UniqueViolationError } from '../store/store-errors.ts';
import type { QuoteService } from './quote-service.ts';
import type { ServiceDeps } from './service-deps.ts';

export interface SwapInput {
  readonly orderId: string;
  readonly quoteId: string;
  readonly signature: `0x${string}`;
}

export interface SwapService {
  /** Verifies the offerer's signature over the accepted quote and creates the order (the same swap again: the same order). */
  execute(principal: Principal, input: SwapInput): Promise<{ order: Order; created: boolean }>;
}

export function createSwapService(deps: ServiceDeps & { quotes: QuoteService }): SwapService {
  const { database, clock, quotes } = deps;

  /** The same swap submitted again is the same order: a retry must never create a second one. */
  function sameSwapOrConflict(existing: Order, input: SwapInput) {
    if (
      existing.signature.toLowerCase() !==
      (canonicalSignature(input.signature) ?? input.signature).toLowerCase()
    ) {
      throw fieldError(
        'CONFLICT',
        'body.signature',
        'this quote was already executed with a different signature',
      );
    }
    return { order: existing, created: false };
  }

  return {
    /** Verifies the offerer's signature over the accepted quote and creates the order. */
    async execute(principal: Principal, input: SwapInput): Promise<{ order: Order; created: boolean }> {
      if (principal.accountType !== 'moneyMover')
        throw new AppError('FORBIDDEN', 'only money movers execute swaps');
      const { quote, request } = await quotes.get(principal, input.quoteId).catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'QUOTE_NOT_FOUND') {
          throw fieldError('QUOTE_NOT_FOUND', 'body.quoteId', `quote ${input.quoteId} does not exist`);
        }
        throw error;
      });
      if (quote.orderId !== input.orderId) {
        throw fieldError('VALIDATION_ERROR', 'body.orderId', 'does not match the orderId of the quote');
      }
      const existing = await findOrderByQuote(database.db, quote.id);
      if (existing) return sameSwapOrConflict(existing, input);

      const now = clock.now();
      const refusal = executeRefusal(quote, now);
      if (refusal?.code === 'QUOTE_EXPIRED') {
        throw fieldError('QUOTE_EXPIRED', 'body.quoteId', 'the quote has expired');
      }
      if (refusal) {
        throw fieldError(
          'QUOTE_NOT_ACTIVE',
          'body.quoteId',
          `the quote is ${refusal.status}; accept it before executing`,
        );
      }
      // The quote's signingHash is the EIP-712 hash of its typed data, computed by this server when it wrote both
      // in one row; recovering against it skips re-hashing the typed data on every swap (bench/README.md).
      // Stored in the one form the escrow's ECDSA accepts, so an order the API takes can always be deposited.
      const signature = canonicalSignature(input.signature);
      const signer = signature === null ? null : recoverSigner(quote.signingHash, signature);
      if (signer === null || !sameAddress(signer, request.offerer)) {
        throw fieldError(
          'INVALID_SIGNATURE',
          'body.signature',
          `the signature does not recover the offerer ${request.offerer} over the quote's typed data`,
        );
      }
      const order = orderFromAcceptedQuote({
        quote,
        request,
        signature: signature as `0x${string}`,
        actor: principal.accountId,
        now,
      });
      try {
        await database.write(orderInsert(order), [
          {
            type: 'order.created',
            occurredAt: now,
            data: publicOrderView(order),
            accountIds: [order.moneyMoverAccountId, order.liquidityProviderAccountId],
          },
        ]);
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
        // A concurrent identical request won the insert; answer with its order.
        const winner = await findOrderByQuote(database.db, quote.id);
        if (!winner) throw error;
        return sameSwapOrConflict(winner, input);
      }
      return { order, created: true };
    },
  };
}
