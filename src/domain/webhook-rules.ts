import { channelsOf, EVENT_TYPES, type EventType } from './events.ts';

/** An account may register this many endpoints; the next one is refused (WEBHOOK_LIMIT_REACHED). */
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;

/** A receiver has this long to answer 2xx; a slower answer is a failed attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The event types an endpoint can receive: those of the account channel, the account's own events. */
export const WEBHOOK_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) =>
  channelsOf(type).includes('account'),
);

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The wait after each failed attempt: the first retry within 5 s, growing to every 4 h. The waits add up to 26.7 h,
 * so a receiver is retried for more than a day (14 attempts) before its delivery is marked failed.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  4 * HOUR,
  4 * HOUR,
  4 * HOUR,
  4 * HOUR,
  4 * HOUR,
];

/** The wait before the next attempt after `failures` failed ones in a row, or null: give up, the delivery failed. */
export function retryDelayAfter(failures: number, delays: readonly number[]): number | null {
  return delays[failures - 1] ?? null;
}

/**
 * How long an endpoint is held back after `failures` failed attempts in a row, whichever deliveries they were: the
 * same schedule, staying at its last step. A receiver that is down is tried once per step, not once per pending
 * delivery, and its first success ends the wait.
 */
export function endpointBackoffAfter(failures: number, delays: readonly number[]): number {
  return retryDelayAfter(Math.max(failures, 1), delays) ?? delays.at(-1) ?? 0;
}

/** Standard Webhooks' content: `id.timestamp.body`, signed with HMAC-SHA256 (webhook-signature.ts). */
export function signedContent(id: string, timestampSeconds: number, body: string): string {
  return `${id}.${timestampSeconds}.${body}`;
}
