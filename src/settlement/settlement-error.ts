import { FerryError } from '../domain/ferry-error.ts';

/**
 * What the worker finds missing in its own records (an order without its quote, a proof message without its
 * packet): the same step fails the same way until the records change, so it is not retryable.
 */
export class SettlementError extends FerryError {
  override readonly name = 'SettlementError';
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { cause: options.cause, retryable: false });
  }
}
