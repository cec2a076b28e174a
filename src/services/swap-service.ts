import type { Hex } from 'viem';
import { registryChain } from '../chains/chain-registry.ts';
import type { SignatureChecks } from '../chains/signature-checks.ts';
import { type Address, sameAddress } from '../domain/address.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import { executeRefusal } from '../domain/lifecycle.ts';
import { orderFromAcceptedQuote } from '../domain/order-from-quote.ts';
import { canonicalSignature, recoverSigner } from '../domain/order-signature.ts';
import type { Principal } from '../domain/principal.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { Order } from '../domain/records.ts';
import { type SwapPermit, verifiedPermitSignature } from '../domain/swap-permit.ts';
import { findOrderByQuote, orderInsert } from '../store/orders-store.ts';
import { UniqueViolationError } from '../store/store-errors.ts';
import { insertSwapPermit } from '../store/swap-permits-store.ts';
import type { QuoteService } from './quote-service.ts';
import type { ServiceDeps } from './service-deps.ts';

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

  /**
   * The order signature as stored. An offerer with code on the input chain signs through EIP-1271 (a Safe, a smart
   * account: any length, checked on chain, stored as sent); anyone else with ECDSA, checked here against the quote's
   * signingHash (the EIP-712 hash this server wrote with it, so no re-hashing per swap: bench/README.md) and stored
   * in the one form the escrow's ECDSA accepts, so an order the API takes can always be deposited.
   */
  async function verifiedOrderSignature(
    request: { offerer: Address; inputChain: string },
    signingHash: Hex,
    sent: Hex,
  ): Promise<Hex> {
    const refuse = (message: string) => fieldError('INVALID_SIGNATURE', 'body.signature', message);
    const canonical = canonicalSignature(sent);
    const signer = canonical === null ? null : recoverSigner(signingHash, canonical);
    if (canonical !== null && signer !== null && sameAddress(signer, request.offerer)) return canonical;
    if (await signatures.isContract(request.inputChain, request.offerer)) {
      if (await signatures.contractSigned(request.inputChain, request.offerer, signingHash, sent)) return sent;
      throw refuse(
        `the offerer ${request.offerer} is a contract on ${request.inputChain} and its isValidSignature (EIP-1271) does not accept the signature over the quote's signingHash`,
      );
    }
    throw refuse(`the signature does not recover the offerer ${request.offerer} over the quote's typed data`);
  }

  /** The permit checked against the order it comes with (all before anything is written). */
  async function verifiedPermit(order: Order, sent: NonNullable<SwapInput['permit']>): Promise<SwapPermit> {
    const chain = registryChain(registry, order.inputChain);
    const token = registry.token(order.inputChain, order.inputToken);
    if (!token?.permit) {
      throw fieldError(
        'VALIDATION_ERROR',
        'body.permit',
        `${token?.symbol ?? order.inputToken} on ${order.inputChain} takes no EIP-2612 permits; approve the escrow instead`,
      );
    }
    const deadline = BigInt(sent.deadline);
    if (order.openDeadline !== null && deadline < order.openDeadline) {
      throw fieldError(
        'VALIDATION_ERROR',
        'body.permit.deadline',
        `must be at least the order's openDeadline (${order.openDeadline}): the deposit may happen until then`,
      );
    }
    const nonce = await signatures.permitNonce(order.inputChain, token.address, order.offerer);
    const terms = {
      domain: token.permit,
      chainId: chain.chainId,
      token: token.address,
      owner: order.offerer,
      spender: chain.contracts.escrow,
      value: order.inputAmount,
      nonce,
      deadline,
    };
    const signature = verifiedPermitSignature(terms, sent.signature);
    if (signature === null) {
      throw fieldError(
        'INVALID_SIGNATURE',
        'body.permit.signature',
        `does not recover the offerer ${order.offerer} over the EIP-2612 permit (spender ${terms.spender}, value ${terms.value}, nonce ${nonce}, deadline ${deadline})`,
      );
    }
    return { deadline, signature };
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
      const signature = await verifiedOrderSignature(request, quote.signingHash, input.signature);
      const order = orderFromAcceptedQuote({
        quote,
        request,
        signature,
        actor: principal.accountId,
        now,
      });
      const permit = input.permit ? await verifiedPermit(order, input.permit) : null;
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
