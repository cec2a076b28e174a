import { Type } from 'typebox';
import { ACCOUNT_TYPES } from '../../domain/principal.ts';
import type { AccountService } from '../../services/account-service.ts';
import type { FerryApp } from '../app-types.ts';
import { principalOf, requireAccount } from '../auth-hooks.ts';
import {
  ACCOUNT_SECURITY,
  envelope,
  errorResponses,
  NullableString,
  TimestampSchema,
} from '../schemas/common-schemas.ts';

export function registerAccountRoutes(app: FerryApp, { accounts }: { accounts: AccountService }) {
  app.get(
    '/api/v1/account',
    {
      preValidation: requireAccount('moneyMover', 'liquidityProvider'),
      schema: {
        tags: ['Accounts'],
        operationId: 'getAccount',
        summary: 'Your account',
        description:
          'The account behind the API key or session: its type and, for a liquidity provider, its fill address (the only wallet that may fill its orders). Clients check their credentials with it at start.',
        security: ACCOUNT_SECURITY,
        response: {
          200: envelope(
            Type.Object({
              id: Type.String(),
              type: Type.Enum(ACCOUNT_TYPES),
              name: Type.String(),
              address: NullableString,
              createdAt: TimestampSchema,
            }),
          ),
          ...errorResponses(401, 403, 429),
        },
      },
    },
    async (request) => {
      const account = await accounts.getAccount(principalOf(request).accountId);
      return { message: 'account', data: { ...account, createdAt: account.createdAt.toISOString() } };
    },
  );
}
