import { FerryError } from '../domain/ferry-error.ts';

/** A problem the operator can fix, said in one line (no stack trace). */
export class CliError extends FerryError {
  override readonly name = 'CliError';
  constructor(message: string) {
    // The same command with the same options fails the same way until the operator changes something.
    super(message, { retryable: false });
  }
}
