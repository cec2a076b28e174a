import { BaseError } from 'viem';
import { MAX_CAUSE_DEPTH, walkCauses } from '../domain/cause-walk.ts';

/** Hex longer than a 32-byte word: a signed transaction or calldata, never worth a log line and never safe in one. */
const LONG_HEX = /0x[0-9a-fA-F]{66,}/g;
/** A URL: only its host may be logged (a path or query can carry a provider's key, userinfo a password). */
const URL_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '[url]';
  }
}

/** The text with every URL cut to its host and every long hex blob to its size. */
export function scrubLogText(text: string): string {
  return text
    .replace(URL_TEXT, (url) => `${url.split(':')[0]}://${hostOf(url)}`)
    .replace(LONG_HEX, (hex) => `0x…(${(hex.length - 2) / 2} bytes)`);
}

/** The first string `key` of the error or its causes (a revert reason, an RPC URL). */
function firstString(error: unknown, key: 'reason' | 'url'): string | undefined {
  const found = walkCauses(error, (e) => typeof (e as Record<string, unknown>)[key] === 'string');
  return found ? ((found as Record<string, unknown>)[key] as string) : undefined;
}

/**
 * What may be logged of an error (pino's `err` serializer in every Ferry process): name, message, stack and code
 * with URLs cut to their host and raw transactions and calldata cut to their size. viem's errors carry the RPC URL
 * (which can hold a provider key) and the request body (the signed transaction) in their message: only viem's
 * short message, its details (the node's answer), the revert reason and the RPC host are kept of them.
 */
export function loggableError(error: unknown): Record<string, unknown> {
  return serialize(error, 1);
}

/** The error at `depth` in a chain of causes: nested causes stop at the walker's depth limit. */
function serialize(error: unknown, depth: number): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: scrubLogText(String(error)) };
  const out: Record<string, unknown> = { type: error.name };
  if (error instanceof BaseError) {
    out.message = scrubLogText(error.shortMessage);
    // The node's own words (e.g. "insufficient funds for gas * price + value"), without the request around them.
    if (error.details) out.details = scrubLogText(error.details);
    const reason = firstString(error, 'reason');
    if (reason) out.reason = scrubLogText(reason);
    const url = firstString(error, 'url');
    if (url) out.rpcHost = hostOf(url);
    const cause = walkCauses(error) as Error | null;
    if (cause && cause !== error)
      out.cause = scrubLogText(`${cause.name}: ${(cause as BaseError).shortMessage ?? cause.message}`);
  } else {
    out.message = scrubLogText(error.message);
    if (error.stack) out.stack = scrubLogText(error.stack);
    if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serialize(error.cause, depth + 1);
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  return out;
}
