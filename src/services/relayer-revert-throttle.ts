import { AppError } from '../domain/app-error.ts';
import { MONEY_MOVER_REVERT_KINDS, throttledUntil } from '../domain/relayer-reverts.ts';
import { moneyMoverRevertTimes } from '../store/settlement-store.ts';
import type { ServiceDeps } from './service-deps.ts';

/**
 * A money mover whose orders made the relayer's transactions revert on chain too often swaps no more until the
 * oldest counted revert leaves the window: the relayer's gas is not its to burn.
 */
export async function refuseWhileThrottled(
  deps: Pick<ServiceDeps, 'config' | 'database'>,
  accountId: string,
  now: Date,
): Promise<void> {
  const rule = deps.config.relayerReverts;
  const times = await moneyMoverRevertTimes(deps.database.db, {
    accountId,
    kinds: MONEY_MOVER_REVERT_KINDS,
    since: now.getTime() - rule.windowSeconds * 1000,
    limit: rule.limit,
  });
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
