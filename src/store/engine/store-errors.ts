import { FerryError } from '../../domain/ferry-error.ts';

/**
 * What the store lets through of a driver's errors: typed, with the driver error as `cause`, so services branch
 * on the class and never on a driver's code strings.
 */
export class UniqueViolationError extends FerryError {
  override readonly name = 'UniqueViolationError';
  constructor(cause: unknown) {
    // The same insert meets the same row again.
    super('a unique constraint was violated', { cause, retryable: false });
  }
}

/**
 * A quote's insert refused because the LP's fill address does not cover it on top of what the LP already promised
 * on that chain and token (`promised`, base units): lp-commitments-store.ts coverCheck.
 */
export class UncoveredQuoteError extends FerryError {
  override readonly name = 'UncoveredQuoteError';
  constructor(
    readonly promised: bigint,
    cause?: unknown,
  ) {
    super('the fill address does not cover the quote on top of its open promises', {
      cause,
      retryable: false,
    });
  }
}

/**
 * Two writers took the same nonce row at once and this one lost (tx-ledger-store.ts allocateNonce): nothing was
 * written, and the same call tried again reads the winner's row and goes through. Retryable by definition.
 */
export class NonceRaceError extends FerryError {
  override readonly name = 'NonceRaceError';
  constructor(message: string) {
    super(message, { retryable: true });
  }
}

/**
 * The store refuses what breaks its own rules (a status transition the lifecycle forbids, too many events in one
 * transaction, a migration that fails): tried again unchanged it fails the same way.
 */
export class StoreError extends FerryError {
  override readonly name = 'StoreError';
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { cause: options.cause, retryable: false });
  }
}

/** PostgreSQL's ferry_cover_quote raises this code with the promised sum as its message. */
const UNCOVERED_CODE = 'FR001';

/** The database cannot be reached right now (worth a 503, not a 500). */
export class StoreUnavailableError extends FerryError {
  override readonly name = 'StoreUnavailableError';
  constructor(cause: unknown) {
    super('the database is unreachable', { cause, retryable: true });
  }
}

function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  'SQLITE_BUSY',
]);

function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = String((error as { code?: unknown }).code ?? '');
  return (
    CONNECTION_CODES.has(code) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(String((error as Error).message))
  );
}

/** Converts a driver error into the store's typed error; anything else is returned as it is. */
export function storeError(error: unknown): unknown {
  if (
    error instanceof UniqueViolationError ||
    error instanceof StoreUnavailableError ||
    error instanceof UncoveredQuoteError
  ) {
    return error;
  }
  if ((error as { code?: unknown } | null)?.code === UNCOVERED_CODE) {
    return new UncoveredQuoteError(BigInt((error as Error).message), error);
  }
  if (isUniqueViolation(error)) return new UniqueViolationError(error);
  if (isConnectionError(error)) return new StoreUnavailableError(error);
  return error;
}
