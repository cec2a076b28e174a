import { privateKeyToAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import { type Config, redactUrl } from '../config/config.ts';

/** What `ferry start` prints once it listens: only links that answer, and on devnets what to try them with. */
export function startBanner(options: {
  base: string;
  config: Config;
  registry: ChainRegistry;
  /** The built-in devnets' funded wallets (anvil's public keys); absent with CHAIN_REGISTRY. */
  demoWallets?: readonly `0x${string}`[];
}): string {
  const { base, config, registry, demoWallets } = options;
  const lines = [
    `Ferry is listening on ${base}`,
    `  Explorer       ${base}/`,
    `  API reference  ${base}/docs`,
    `  OpenAPI        ${base}/openapi.json`,
    `  Public API     ${base}/api/public/orders`,
    `  Health         ${base}/healthz`,
    `  Database       ${redactUrl(config.databaseUrl)}`,
    `  Worker         ${config.worker.enabled ? 'on (in this process)' : 'off: run `ferry worker` (or set WORKER=true)'}`,
    `  Chains`,
    // RPC URLs of a real registry may carry provider keys: only the local devnets' are printed.
    ...registry.chains.map(
      (c) => `    ${c.name.padEnd(12)} chain id ${c.chainId}${demoWallets ? `   RPC ${c.rpcUrl}` : ''}`,
    ),
  ];
  if (demoWallets?.length) {
    lines.push(
      '  Funded devnet wallets (anvil test keys: public, devnet only; 1,000,000 of each token, both chains)',
    );
    for (const key of demoWallets) lines.push(`    ${privateKeyToAccount(key).address}  key ${key}`);
  }
  return lines.join('\n');
}
