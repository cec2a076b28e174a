import { Type } from 'typebox';
import { orderView } from '../../domain/account-views.ts';
import type { SwapService } from '../../services/swap-service.ts';
import type { FerryApp } from '../app-types.ts';
import { principalOf, requireAccount } from '../auth-hooks.ts';
import { ACCOUNT_SECURITY, envelope, errorResponses, IdSchema } from '../schemas/common-schemas.ts';
import { OrderSchema } from '../schemas/resource-schemas.ts';

const SwapResponse = envelope(
  Type.Object({ orderId: Type.String(), blockchainOrderId: Type.String(), order: OrderSchema }),
);

export function registerSwapRoutes(app: FerryApp, { swaps }: { swaps: SwapService }) {
  app.post(
    '/api/v1/swaps',
    {
      preValidation: requireAccount('moneyMover'),
      schema: {
        tags: ['Swaps'],
        operationId: 'executeSwap',
        summary: 'Execute a swap',
        description:
          "Submits the offerer's EIP-712 signature over an accepted quote's typed data and creates the order (201). The signature must recover the offerer, or, when the offerer is a contract on the input chain (a Safe, a smart account), be accepted by its EIP-1271 isValidSignature over the quote's signingHash (400 INVALID_SIGNATURE otherwise). An optional EIP-2612 `permit` (tokens whose `permit` is set in GET /api/public/chains) lets Ferry deposit without an approve: the offerer then needs no transaction and no gas. Repeating the same request returns the same order with 200. An account whose orders made Ferry's relayer transactions (deposits, refunds) revert on chain RELAYER_REVERT_LIMIT times within RELAYER_REVERT_WINDOW_SECONDS gets 429 RATE_LIMITED (detail path `account`, Retry-After) on new swaps.",
        security: ACCOUNT_SECURITY,
        body: Type.Object(
          {
            orderId: IdSchema,
            quoteId: IdSchema,
            signature: Type.String({
              pattern: '^0x([0-9a-fA-F]{2})*$',
              maxLength: 2 + 2 * 4096,
              description:
                "The offerer's signature over the quote's typed data: 65-byte (or 64-byte EIP-2098) ECDSA, or, for a contract offerer, whatever its EIP-1271 isValidSignature takes (a Safe: one 65-byte segment per owner), up to 4096 bytes",
              'x-message': 'must be a 0x-prefixed hex signature of at most 4096 bytes',
            }),
            permit: Type.Optional(
              Type.Object(
                {
                  deadline: Type.String({
                    pattern: '^[0-9]{1,78}$',
                    description:
                      "The permit's deadline in unix seconds (decimal string); at least the order's openDeadline",
                    'x-message': 'must be a decimal string of unix seconds',
                  }),
                  signature: Type.String({
                    pattern: '^0x([0-9a-fA-F]{128}|[0-9a-fA-F]{130})$',
                    description: '65-byte (or 64-byte EIP-2098) hex signature',
                    'x-message': 'must be a 0x-prefixed 65-byte hex signature',
                  }),
                },
                {
                  additionalProperties: false,
                  description:
                    "The offerer's EIP-2612 permit for the deposit: owner the offerer, spender the input chain's escrow, value the quote's inputAmount, nonce the token's nonces(offerer) now, this deadline; signed in the token's permit domain (GET /api/public/chains). Ferry then deposits with depositWithPermit: no approve transaction, no gas for the offerer.",
                },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: SwapResponse,
          201: SwapResponse,
          ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { orderId, quoteId } = request.body;
      const { order, created } = await swaps.execute(principal, {
        orderId,
        quoteId,
        signature: request.body.signature as `0x${string}`,
        ...(request.body.permit
          ? {
              permit: {
                deadline: request.body.permit.deadline,
                signature: request.body.permit.signature as `0x${string}`,
              },
            }
          : {}),
      });
      reply.code(created ? 201 : 200);
      return {
        message: created ? 'swap executed' : 'swap already executed',
        data: {
          orderId: order.id,
          blockchainOrderId: order.blockchainOrderId,
          order: orderView(order, principal),
        },
      };
    },
  );
}
