import { FerryError } from './ferry-error.ts';

/** Every error code the API can answer with, and the HTTP status each maps to (docs/errors.md). */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_TOKEN: 400,
  INVALID_CHAIN: 400,
  INVALID_SIGNATURE: 400,
  AMOUNT_TOO_SMALL: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  ORDER_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  QUOTE_REQUEST_NOT_FOUND: 404,
  NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  QUOTE_NOT_ACTIVE: 409,
  QUOTE_REQUEST_CLOSED: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  CONFLICT: 409,
  WEBHOOK_LIMIT_REACHED: 409,
  QUOTE_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INSUFFICIENT_BALANCE: 422,
  RATE_LIMITED: 429,
  STREAM_LIMIT: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

/** Codes that answer "try again later" (the same request may then succeed). */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set([
  'RATE_LIMITED',
  'STREAM_LIMIT',
  'SERVICE_UNAVAILABLE',
]);

/**
 * The error the API answers with. The HTTP layer turns it into `{ error, code, details }` (the body never shows
 * `cause`); anything that is not an AppError becomes INTERNAL_ERROR.
 */
export class AppError extends FerryError<readonly ErrorDetail[]> {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** Extra response headers (e.g. Retry-After); never part of the body. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    details: readonly ErrorDetail[] = [],
    headers: Readonly<Record<string, string>> = {},
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause, details, retryable: RETRYABLE_CODES.has(code) });
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
    this.headers = headers;
  }
}

/** Shorthand for the common single-field error. */
export function fieldError(
  code: ErrorCode,
  path: string,
  message: string,
  options: { readonly cause?: unknown } = {},
): AppError {
  return new AppError(code, message, [{ path, message }], {}, options);
}
