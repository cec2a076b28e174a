import { ConfigError } from '../config/config.ts';
import { FerryError } from '../domain/ferry-error.ts';

/**
 * The reference LP bot will not go on with an order or a pass: a chain it does not know, a wallet that cannot pay
 * a fee, a fill that reverted. `retryable` when the next pass may go otherwise (a wallet topped up, a chain list
 * that changed); the bot's loop retries every pass either way, a one-off command exits on it.
 */
export class LpBotError extends FerryError {
  override readonly name = 'LpBotError';
  constructor(message: string, options: { readonly cause?: unknown; readonly retryable?: boolean } = {}) {
    super(message, { cause: options.cause, retryable: options.retryable ?? false });
  }
}

/** A bot option out of range (proveBatch, maxOffererShare): a ConfigError, said in one line as is. */
export function optionError(message: string): ConfigError {
  return new ConfigError([message], { message });
}
