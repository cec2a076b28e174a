import { FerryError, isRetryable } from '../domain/ferry-error.ts';

/**
 * A problem the operator can fix, said in one line (no stack trace). Retryable only when what it says in one line
 * (`cause`) is: the same command with the same options fails the same way until the operator changes something,
 * unless a node or a database was only out of reach for now.
 */
export class CliError extends FerryError {
  override readonly name = 'CliError';
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { cause: options.cause, retryable: isRetryable(options.cause) });
  }
}
