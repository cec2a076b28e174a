import type { SignatureChecks } from '../chains/signature-checks.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import { executeRefusal } from '../domain/lifecycle.ts';
import { orderFromAcceptedQuote } from '../domain/order-from-quote.ts';
import { canonicalSignature } from '../domain/order-signature.ts';
import type { Principal } from '../domain/principal.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { Order } from '../domain/records.ts';
import type { SwapPermit } from '../domain/swap-permit.ts';
import { UniqueViolationError } from '../store/engine/store-errors.ts';
import { orderOfQuoteAndRevertTimes } from '../store/ledgers/settlement-store.ts';
import { lockOffererFunds } from '../store/tables/offerer-lock.ts';
import { findOrderByQuote, orderInsert } from '../store/tables/orders-store.ts';
import { insertSwapPermit, pendingPermitOrder } from '../store/tables/swap-permits-store.ts';
import type { QuoteService } from './quote-service.ts';
import { refuseWhileThrottled, throttleReverts } from './relayer-revert-throttle.ts';
import type { ServiceDeps } from './service-deps.ts';
import { verifiedOrderSignature, verifiedPermit } from './swap-signatures.ts';

export interface SwapInput {
  readonly orderId: string;
  readonly quoteId: string;
  readonly signature: `0x${string}`;
  /** The offerer's EIP-2612 permit for the deposit: no approve transaction needed. */
  readonly permit?: { readonly deadline: string; readonly signature: `0x${string}` };
}

export interface SwapService {
  /** Verifies the offerer's signature over the accepted quote and creates the order (the same swap again: the same order). */
  execute(principal: Principal, input: SwapInput): Promise<{ order: Order; created: boolean }>;
}

export function createSwapService(
  deps: ServiceDeps & { quotes: QuoteService; signatures: SignatureChecks },
): SwapService {
  const { database, clock, quotes, registry, signatures } = deps;

  /** The same swap submitted again is the same order: a retry must never create a second one. */
  function sameSwapOrConflict(existing: Order, input: SwapInput) {
    const stored = existing.signature.toLowerCase();
    const sent = input.signature.toLowerCase();
    if (stored !== sent && stored !== (canonicalSignature(input.signature) ?? sent).toLowerCase()) {
      throw fieldError(
        'CONFLICT',
        'body.signature',
        'this quote was already executed with a different signature',
      );
    }
    return { order: existing, created: false };
  }

  /** The order, its permit and its event: one unit of work (without a permit, the single-statement write). */
  async function insertOrder(order: Order, permit: SwapPermit | null): Promise<void> {
    const created = {
      type: 'order.created' as const,
      occurredAt: order.createdAt,
      data: publicOrderView(order),
      accountIds: [order.moneyMoverAccountId, order.liquidityProviderAccountId],
    };
    if (!permit) return database.write(orderInsert(order), [created]);
    await database.transaction(async (trx, uow) => {
      const funds = { chain: order.inputChain, token: order.inputToken, offerer: order.offerer };
      await lockOffererFunds(trx, database.dialect, funds);
      const earlier = permit.nonce === null ? null : await pendingPermitOrder(trx, funds, permit.nonce);
      // The same swap sent twice at once carries its own order id: its insert meets the unique key instead.
      if (earlier !== null && earlier !== order.id) {
        throw fieldError(
          'CONFLICT',
          'body.permit',
          `the offerer's permit nonce ${permit.nonce} on this token is already carried by order ${earlier}, not yet ` +
            'deposited: only one of the two deposits could use it; swap with an approve instead, or after that deposit',
        );
      }
      await trx.executeQuery(orderInsert(order)(trx));
      await insertSwapPermit(trx, order.id, permit);
      uow.emit(created);
    });
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
      const now = clock.now();
      const reverts = throttleReverts(deps, principal.accountId, now);
      const { order: existing, revertTimes } = await orderOfQuoteAndRevertTimes(
        database.db,
        quote.id,
        reverts,
      );
      if (existing) return sameSwapOrConflict(existing, input);
      refuseWhileThrottled(deps, revertTimes, now);
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
      const signature = await verifiedOrderSignature(signatures, request, quote.signingHash, input.signature);
      const order = orderFromAcceptedQuote({
        quote,
        request,
        signature,
        actor: principal.accountId,
        now,
      });
      const permit = input.permit
        ? await verifiedPermit({ registry, signatures }, order, input.permit)
        : null;
      try {
        await insertOrder(order, permit);
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
