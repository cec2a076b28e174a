import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import {
  type ChainRegistry,
  createChainRegistry,
  loadChainRegistryFile,
  type RegistryFile,
} from '../chains/chain-registry.ts';
import type { Config } from '../config/config.ts';
import { ANVIL_KEYS, DEVNET_WORKER_KEYS, startDevnets } from '../devnet/devnet.ts';
import { devnetRegistryFile } from '../devnet/devnet-registry.ts';
import type { WorkerKeys } from '../settlement/worker-runtime.ts';

/**
 * The registry comes from CHAIN_REGISTRY when set; otherwise Ferry starts its two anvil devnets, deploys
 * its contracts and writes the resulting registry to the data folder. LayerZero devnets run their relay (the DVNs
 * and the executor) in this process until `stop`.
 */
export async function resolveRegistry(
  config: Config,
  log: FastifyBaseLogger,
): Promise<{
  registry: ChainRegistry;
  /** The registry file written for the devnets (null when it came from CHAIN_REGISTRY). */
  file: RegistryFile | null;
  stop: () => Promise<void>;
  workerKeys?: WorkerKeys;
  /** Keys of the wallets the devnets funded (anvil accounts 2-4), to print for people trying Ferry out. */
  demoWallets?: readonly `0x${string}`[];
}> {
  if (config.chainRegistryPath) {
    return { registry: loadChainRegistryFile(config.chainRegistryPath), file: null, stop: async () => {} };
  }
  const devnets = await startDevnets({
    dataDir: path.join(config.dataDir, 'devnets'),
    ports: config.devnetPorts,
    blockTime: config.devnetBlockTime,
    messenger: config.devnetMessenger,
    protocolFeeBps: config.protocolFeeBps,
    log,
  });
  const file = devnetRegistryFile(devnets);
  fs.writeFileSync(path.join(config.dataDir, 'chains.json'), `${JSON.stringify(file, null, 2)}\n`);
  // On the devnets the worker uses anvil's well-known accounts: 5 pays gas, 1 attests (attester devnets trust it).
  const workerKeys = DEVNET_WORKER_KEYS;
  return {
    registry: createChainRegistry(file),
    file,
    stop: () => devnets.stop(),
    workerKeys,
    demoWallets: ANVIL_KEYS.slice(2),
  };
}
