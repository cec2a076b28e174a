import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { type ChainRegistry, createChainRegistry, loadChainRegistryFile } from '../chains/chain-registry.ts';
import { startDevnets } from '../chains/devnet.ts';
import { devnetRegistryFile } from '../chains/devnet-registry.ts';
import type { Config } from '../config/config.ts';

/**
 * The registry comes from CHAIN_REGISTRY when set; otherwise Ferry starts its two anvil devnets, deploys
 * its contracts and writes the resulting registry to the data folder.
 */
export async function resolveRegistry(
  config: Config,
  log: FastifyBaseLogger,
): Promise<{ registry: ChainRegistry; stop: () => Promise<void> }> {
  if (config.chainRegistryPath) {
    return { registry: loadChainRegistryFile(config.chainRegistryPath), stop: async () => {} };
  }
  const devnets = await startDevnets({
    dataDir: path.join(config.dataDir, 'devnets'),
    ports: config.devnetPorts,
    log,
  });
  const file = devnetRegistryFile(devnets);
  fs.writeFileSync(path.join(config.dataDir, 'chains.json'), `${JSON.stringify(file, null, 2)}\n`);
  return { registry: createChainRegistry(file), stop: () => devnets.stop() };
}
