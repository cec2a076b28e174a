import type { FastifyBaseLogger } from 'fastify';
import { formatEther } from 'viem';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import type { Address } from '../domain/address.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { createPeriodicJob, type PeriodicJob } from '../process/periodic-job.ts';

/** A chain whose relayer holds less than its floor: deposits, settles and refunds there will soon stall. */
export interface RelayerWarning {
  readonly chain: string;
  readonly reason: 'relayer balance below floor';
  readonly relayer: Address;
  /** Wei, decimal strings. */
  readonly balanceWei: string;
  readonly floorWei: string;
}

export interface RelayerBalanceWatch extends Pick<PeriodicJob<void>, 'runOnce' | 'start' | 'stop'> {
  /** The chains below their floor at the last reading. */
  warnings(): readonly RelayerWarning[];
}

/**
 * Reads the relayer's native balance on every registry chain every `everyMs`: a gauge per chain
 * (ferry_relayer_balance_wei), and, below the chain's `relayerMinBalanceEther`, a warning logged once per crossing
 * (and an info line when it recovers) and listed by /readyz. An unreadable chain keeps its last reading.
 */
export function createRelayerBalanceWatch(deps: {
  registry: ChainRegistry;
  chain: Pick<SettlementChain, 'nativeBalance'>;
  relayer: Address;
  metrics: FerryMetrics;
  log: FastifyBaseLogger;
  everyMs?: number;
}): RelayerBalanceWatch {
  const { registry, chain, relayer, metrics, log } = deps;
  const low = new Map<string, RelayerWarning>();

  async function readAll(): Promise<void> {
    await Promise.all(
      registry.chains.map(async ({ name, relayerMinBalance }) => {
        const balance = await chain.nativeBalance(name, relayer).catch(() => null);
        if (balance === null) return;
        metrics.relayerBalance.set({ chain: name }, Number(balance));
        const fields = {
          chain: name,
          relayer,
          balance: formatEther(balance),
          floor: formatEther(relayerMinBalance),
        };
        if (balance < relayerMinBalance) {
          if (!low.has(name))
            log.warn(fields, "the relayer's balance is below its floor: top it up before orders stall");
          low.set(name, {
            chain: name,
            reason: 'relayer balance below floor',
            relayer,
            balanceWei: balance.toString(),
            floorWei: relayerMinBalance.toString(),
          });
        } else if (low.delete(name)) {
          log.info(fields, "the relayer's balance is back above its floor");
        }
      }),
    );
  }

  const job = createPeriodicJob({
    name: 'relayer balance',
    intervalMs: deps.everyMs ?? 15_000,
    firstRunMs: 0,
    run: readAll,
    log,
  });
  return {
    runOnce: job.runOnce,
    start: job.start,
    stop: job.stop,
    warnings: () => [...low.values()],
  };
}
