import type { ErrorCode, ErrorDetail } from './types.js';

/**
 * Codes the client itself raises: `NETWORK_ERROR` (Ferry could not be reached or the request timed out, status 0)
 * and `UNEXPECTED_RESPONSE` (a non-2xx answer without Ferry's error body, e.g. from a proxy).
 */
export type ClientErrorCode = 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';
export type FerryErrorCode = ErrorCode | ClientErrorCode;

/**
 * Every failed call of the SDK throws this (`code` is one of Ferry's codes, generated from the OpenAPI document,
 * e.g. `AMOUNT_TOO_SMALL` for an inputAmount below the token's minAmount, or `INSUFFICIENT_BALANCE` for a quote
 * the liquidity provider's fill address cannot cover): the HTTP status, Ferry's machine-readable `code`, the field `details`
 * (`path` prefixed by `body.`, `query.`, `params.` or `headers.`) and, on a 429 or 503, `retryAfter` in seconds.
 */
export class FerryApiError extends Error {
  override readonly name = 'FerryApiError';
  /** HTTP status; 0 when no response came (network error or timeout). */
  readonly status: number;
  readonly code: FerryErrorCode;
  readonly details: readonly ErrorDetail[];
  /** Seconds from the `Retry-After` header, when the server sent one. */
  readonly retryAfter: number | undefined;
  /** The server's summary text (`error` of the body), without the method and path prefix of `message`. */
  readonly summary: string;

  constructor(init: {
    status: number;
    code: FerryErrorCode;
    summary: string;
    details?: readonly ErrorDetail[];
    retryAfter?: number;
    /** `METHOD /path`, prefixed to the message. */
    request?: string;
    cause?: unknown;
  }) {
    const details = init.details ?? [];
    const extra = details
      .filter((d) => d.message !== init.summary)
      .map((d) => ` (${d.path}: ${d.message})`)
      .join('');
    const prefix = init.request ? `${init.request}: ` : '';
    const status = init.status > 0 ? `${init.status} ` : '';
    super(`${prefix}${status}${init.summary}${extra}`, init.cause === undefined ? {} : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = details;
    this.retryAfter = init.retryAfter;
    this.summary = init.summary;
  }

  /** True when the same request may succeed later (429, 503, network errors). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status === 503;
  }
}

export function isFerryApiError(error: unknown, code?: FerryErrorCode): error is FerryApiError {
  return error instanceof FerryApiError && (code === undefined || error.code === code);
}

/** Builds the error for a non-2xx response whose body (parsed JSON, or anything) is `body`. */
export function errorFromResponse(response: Response, body: unknown, request?: string): FerryApiError {
  const retryHeader = response.headers.get('retry-after');
  const retryAfter =
    retryHeader !== null && /^\d+$/.test(retryHeader.trim()) ? Number(retryHeader) : undefined;
  const problem = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const isFerryBody = typeof problem.code === 'string' && typeof problem.error === 'string';
  const details = Array.isArray(problem.details)
    ? (problem.details as unknown[]).filter(
        (d): d is ErrorDetail =>
          typeof d === 'object' &&
          d !== null &&
          typeof (d as ErrorDetail).path === 'string' &&
          typeof (d as ErrorDetail).message === 'string',
      )
    : [];
  return new FerryApiError({
    status: response.status,
    code: isFerryBody ? (problem.code as ErrorCode) : 'UNEXPECTED_RESPONSE',
    summary: isFerryBody ? (problem.error as string) : response.statusText || `HTTP ${response.status}`,
    details,
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(request === undefined ? {} : { request }),
  });
}

export function networkError(error: unknown, request?: string): FerryApiError {
  const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  const reason =
    error instanceof Error
      ? error.cause instanceof Error
        ? error.cause.message
        : error.message
      : String(error);
  return new FerryApiError({
    status: 0,
    code: 'NETWORK_ERROR',
    summary: timedOut ? `no answer: ${reason}` : `Ferry could not be reached: ${reason}`,
    ...(request === undefined ? {} : { request }),
    cause: error,
  });
}
