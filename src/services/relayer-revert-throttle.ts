import { AppError } from '../domain/app-error.ts';
import { MONEY_MOVER_REVERT_KINDS, throttledUntil } from '../domain/relayer-reverts.ts';
import type { RevertTimesQuery } from '../store/ledgers/settlement-store.ts';
import type { ServiceDeps } from './service-deps.ts';

/** The reverts a money mover's throttle counts at `now`: read by the caller, with the reads it makes anyway. */
export function throttleReverts(
  deps: Pick<ServiceDeps, 'config'>,
  accountId: string,
  now: Date,
): RevertTimesQuery {
  const rule = deps.config.relayerReverts;
  return {
    accountId,
    kinds: MONEY_MOVER_REVERT_KINDS,
    since: now.getTime() - rule.windowSeconds * 1000,
    limit: rule.limit,
  };
}

/**
 * A money mover whose orders made the relayer's transactions revert on chain too often swaps no more until the
 * oldest counted revert leaves the window: the relayer's gas is not its to burn. `times`: what throttleReverts
 * asked for.
 */
export function refuseWhileThrottled(
  deps: Pick<ServiceDeps, 'config'>,
  times: readonly number[],
  now: Date,
): void {
  const rule = deps.config.relayerReverts;
  const until = throttledUntil(times, now.getTime(), rule);
  if (until === null) return;
  const seconds = Math.max(1, Math.ceil((until - now.getTime()) / 1000));
  const message =
    `${times.length} of this account's orders made the relayer's transactions revert on chain within ` +
    `${rule.windowSeconds} s (the limit is ${rule.limit}); new swaps are refused for ${seconds} s`;
  throw new AppError('RATE_LIMITED', message, [{ path: 'account', message }], {
    'retry-after': String(seconds),
  });
}
