import { FerryError } from '../domain/ferry-error.ts';

/**
 * A chain, a devnet or a contract artifact is not what Ferry expects: a transaction that reverted where it must
 * not, a contract that is not the one planned, an RPC that does not answer, a compiler that fails. Not retryable
 * unless the caller says so (`retryable`: an RPC that may answer later).
 */
export class ChainError extends FerryError {
  override readonly name = 'ChainError';
  constructor(message: string, options: { readonly cause?: unknown; readonly retryable?: boolean } = {}) {
    super(message, { cause: options.cause, retryable: options.retryable ?? false });
  }
}
