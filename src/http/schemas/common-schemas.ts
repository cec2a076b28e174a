import { type TSchema, Type } from 'typebox';
import { ERROR_STATUS } from '../../domain/app-error.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/pagination.ts';

/** `x-message` replaces the validator's generic text ("must match pattern …") with one a person can act on. */
export const AddressSchema = Type.String({
  pattern: '^0x[a-fA-F0-9]{40}$',
  description: 'EVM address, any case on input; returned EIP-55 checksummed',
  examples: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
  'x-message': 'must be a 0x-prefixed 20-byte hex address',
});

export const AmountSchema = Type.String({
  pattern: '^[1-9][0-9]{0,77}$',
  description: 'Token amount in base units as a decimal integer string (1000000 is 1 USDC); at most 2^256-1',
  examples: ['1000000'],
  'x-message':
    'must be a positive integer in base units, as a decimal string without sign, fraction or exponent',
});

export const IdSchema = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const ChainNameSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Chain name from GET /api/public/chains',
});
export const TimestampSchema = Type.String({ description: 'ISO 8601 UTC with milliseconds' });
export const NullableTimestampSchema = Type.Union([TimestampSchema, Type.Null()]);
export const NullableString = Type.Union([Type.String(), Type.Null()]);

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'Human-readable summary' }),
    code: Type.Enum(Object.keys(ERROR_STATUS), { description: 'Machine-readable code' }),
    details: Type.Array(
      Type.Object({
        path: Type.String({
          description: 'Offending field, prefixed by its location: body., query., params., headers.',
        }),
        message: Type.String(),
      }),
    ),
  },
  { $id: 'ErrorBody', description: 'Every error the API answers has this body' },
);

export const PaginationQuery = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1' }),
  pageSize: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Results per page, 1 to 100',
  }),
};

/** The page fields every paginated list answers with (`total` counts all matches, not just this page). */
export const PageFields = {
  total: Type.Integer({ description: 'Number of matching items on all pages' }),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  totalPages: Type.Integer(),
};

/** `{message, data}` envelope of authenticated responses. */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ message: Type.String(), data });
}

const ref = Type.Ref('ErrorBody');

/** The error responses a route documents, by status. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ref]));
}

export const AUTH_ERRORS = [400, 401, 403, 429, 500] as const;

/** Endpoints 1-10 accept either an API key or a SIWE session. */
export const ACCOUNT_SECURITY: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** Open to anyone: stated as an empty list, so generators and linters know no credential is missing. */
export const PUBLIC_SECURITY: Array<Record<string, string[]>> = [];

/** Anonymous, or with a credential that unlocks more (the `{}` entry is "no credential"). */
export const OPTIONAL_ACCOUNT_SECURITY: Array<Record<string, string[]>> = [{}, ...ACCOUNT_SECURITY];
