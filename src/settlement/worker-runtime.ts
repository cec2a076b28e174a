import type { FastifyBaseLogger } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { createBlockWatcher } from '../chains/block-watcher.ts';
import { type ChainRegistry, registryChain } from '../chains/chain-registry.ts';
import { createFillLogSource } from '../chains/settlement/fill-log-source.ts';
import { createSettlementChain } from '../chains/settlement/settlement-chain.ts';
import { createTransactionClient } from '../chains/transactions/transaction-client.ts';
import { publicClientsFor } from '../chains/viem-client.ts';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/config.ts';
import type { Clock } from '../domain/clock.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { createFaultInjector } from '../process/fault-injector.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { createStoreTxLedger } from '../store/ledgers/tx-ledger-store.ts';
import { findChainFill } from '../store/tables/log-scan-store.ts';
import { createChainActionExecutor } from './chain-action-executor.ts';
import { createFillIndexer } from './fill-indexer.ts';
import { createRelayerBalanceWatch, type RelayerWarning } from './relayer-balance-watch.ts';
import { warnOnShortSettleGrace } from './settle-grace-check.ts';
import { createSettlementWorker, type SettlementWorker } from './settlement-worker.ts';
import { checkWorkerKeys } from './worker-keys-check.ts';

export interface WorkerKeys {
  readonly relayer: `0x${string}`;
  readonly attester: `0x${string}`;
}

/** The settlement worker as a process runs it: woken by blocks and orders, watching its relayer's balance. */
export interface WorkerRuntime extends SettlementWorker {
  /**
   * Refuses to go on (ConfigError) with keys that cannot work (worker-keys-check.ts), and warns about fallbacks
   * that outlast an escrow's settle grace (settle-grace-check.ts). Call before start().
   */
  checkKeys(): Promise<void>;
  /** Chains whose relayer balance is below its floor, for /readyz. */
  relayerWarnings(): readonly RelayerWarning[];
  /** Reads the relayer's balances now (they are read every 15 s while the worker runs). */
  readRelayerBalances(): Promise<void>;
}

/**
 * Builds the settlement worker from the config. Keys come from RELAYER_PRIVATE_KEY / ATTESTER_PRIVATE_KEY,
 * or, for the built-in devnets only, from their well-known defaults.
 */
export function createWorkerRuntime(deps: {
  config: Config;
  registry: ChainRegistry;
  database: FerryDatabase;
  clock: Clock;
  log: FastifyBaseLogger;
  defaultKeys?: WorkerKeys;
  metrics: FerryMetrics;
}): WorkerRuntime {
  const { config, metrics } = deps;
  const relayerKey = config.worker.relayerKey ?? deps.defaultKeys?.relayer;
  const attesterKey = config.worker.attesterKey ?? deps.defaultKeys?.attester;
  if (!relayerKey || !attesterKey) {
    const message =
      'the settlement worker needs RELAYER_PRIVATE_KEY and ATTESTER_PRIVATE_KEY with a CHAIN_REGISTRY (or set WORKER=false)';
    throw new ConfigError([message], { message });
  }
  const log = deps.log.child({ component: 'settlement' });
  const chain = createSettlementChain({
    registry: deps.registry,
    fills: (name, orderHash) => findChainFill(deps.database.db, name, orderHash),
    rpcErrors: metrics.rpcErrors,
  });
  const fillIndexer = createFillIndexer({
    database: deps.database,
    registry: deps.registry,
    source: createFillLogSource({ registry: deps.registry, rpcErrors: metrics.rpcErrors }),
    clock: deps.clock,
    log,
  });
  const faults = createFaultInjector(config.worker.faultInject);
  const transactions = createTransactionClient({
    ledger: createStoreTxLedger(deps.database),
    chains: (name) => registryChain(deps.registry, name),
    rpc: publicClientsFor(deps.registry, 10_000, metrics.rpcErrors),
    log: deps.log.child({ component: 'transactions' }),
    faults,
    metrics,
    // A chain with a block watcher wakes the worker when the transaction's block arrives; waiting for the receipt
    // inside the pass would only hold every other order behind this one (up to 1 s each).
    receiptWaitMs: (chain) => (deps.registry.chain(chain)?.wsUrl ? 0 : 1_000),
  });
  const actions = createChainActionExecutor({ database: deps.database, transactions, faults });
  const worker = createSettlementWorker({
    database: deps.database,
    registry: deps.registry,
    chain,
    actions,
    transactions,
    clock: deps.clock,
    log,
    fillIndexer,
    relayer: privateKeyToAccount(relayerKey),
    attester: privateKeyToAccount(attesterKey),
    pollMs: config.worker.pollMs,
    leaseMs: config.worker.leaseMs,
    metrics,
  });
  const relayer = privateKeyToAccount(relayerKey);
  const attester = privateKeyToAccount(attesterKey);
  const balances = createRelayerBalanceWatch({
    registry: deps.registry,
    chain,
    relayer: relayer.address,
    metrics,
    log,
  });
  const running = withWakeUps(worker, deps.database, deps.registry, metrics, log);
  return {
    ...running,
    start() {
      balances.start();
      running.start();
    },
    async stop() {
      await balances.stop();
      await running.stop();
    },
    async checkKeys() {
      await checkWorkerKeys({ registry: deps.registry, chain, relayer, attester });
      await warnOnShortSettleGrace({ registry: deps.registry, chain, log });
    },
    relayerWarnings: balances.warnings,
    readRelayerBalances: balances.runOnce,
  };
}

/**
 * Wakes the worker on what its orders wait for, instead of only on its poll: a new block on any registry chain
 * with a `wsUrl` (a receipt, a fill, depth, a deadline), and a new order committed in this process. Both run only
 * while the worker does.
 */
function withWakeUps(
  worker: SettlementWorker,
  database: FerryDatabase,
  registry: ChainRegistry,
  metrics: FerryMetrics,
  log: FastifyBaseLogger,
): SettlementWorker {
  const blocks = createBlockWatcher({
    registry,
    log,
    onBlock() {
      metrics.settlementWakes.inc({ source: 'block' });
      worker.wake();
    },
  });
  let stopOrderWakes: (() => void) | null = null;
  return {
    ...worker,
    start() {
      stopOrderWakes ??= database.onCommitted((types) => {
        if (!types.has('order.created')) return;
        metrics.settlementWakes.inc({ source: 'order' });
        worker.wake();
      });
      blocks.start();
      worker.start();
    },
    async stop() {
      stopOrderWakes?.();
      stopOrderWakes = null;
      await blocks.stop();
      await worker.stop();
    },
  };
}
