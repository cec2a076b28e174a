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
          "Submits the offerer's EIP-712 signature over an accepted quote's typed data and creates the order (201). The signature must recover the offerer (400 INVALID_SIGNATURE). Repeating the same request returns the same order with 200.",
        security: ACCOUNT_SECURITY,
        body: Type.Object(
          {
            orderId: IdSchema,
            quoteId: IdSchema,
            signature: Type.String({
              pattern: '^0x([0-9a-fA-F]{128}|[0-9a-fA-F]{130})$',
              description: '65-byte (or 64-byte EIP-2098) hex signature',
              'x-message': 'must be a 0x-prefixed 65-byte hex signature',
            }),
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
      const { order, created } = await swaps.execute(principal, {
        ...request.body,
        signature: request.body.signature as `0x${string}`,
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
