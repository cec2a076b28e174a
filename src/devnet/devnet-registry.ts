import type { RegistryFile } from '../chains/chain-registry.ts';
import type { DevnetChainConfig } from './devnet-chain-config.ts';

export const DEVNET_PROVE_AFTER_SECONDS = 5;
export const DEVNET_EXECUTE_AFTER_SECONDS = 10;

/** The registry entries of the built-in devnets. Their RPC URLs are loopback and public by nature. */
export function devnetRegistryFile(devnets: { readonly chains: readonly DevnetChainConfig[] }): RegistryFile {
  return {
    chains: devnets.chains.map((chain) => ({
      name: chain.name,
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      rpcUrlPublic: true,
      // anvil answers WebSocket JSON-RPC on the same port.
      wsUrl: chain.rpcUrl.replace(/^http/, 'ws'),
      confirmations: chain.confirmations,
      // Instant mining, or the 2 s interval of the operator-style devnets at most (the settle grace rule).
      blockTimeSeconds: 2,
      startBlock: Number(chain.startBlock),
      messenger: chain.messenger,
      // The devnet's own relay proves and delivers within a second or two; the worker steps in soon after, so a
      // stopped relay (or a filler that did not prove) shows the fallback within seconds, not minutes.
      proveAfterSeconds: DEVNET_PROVE_AFTER_SECONDS,
      executeAfterSeconds: DEVNET_EXECUTE_AFTER_SECONDS,
      contracts: {
        escrow: chain.contracts.escrow,
        fill: chain.contracts.fill,
        ...(chain.contracts.messenger ? { messenger: chain.contracts.messenger } : {}),
      },
      ...(chain.layerzero
        ? {
            layerzero: {
              eid: chain.layerzero.eid,
              endpoint: chain.layerzero.endpoint,
              sendLibrary: chain.layerzero.sendUln302,
              receiveLibrary: chain.layerzero.receiveUln302,
              executor: chain.layerzero.executor,
              requiredDvns: chain.layerzero.dvns.map((dvn) => dvn.address),
              confirmations: chain.confirmations,
              // The devnet's own DVN keys sign as soon as the relay sees the message.
              dvnVerifySeconds: 2,
            },
          }
        : {}),
      // Both devnet tokens take EIP-2612 permits: Circle's USDC as "USD Coin" version "2", TestStablecoin under its
      // name and version "1".
      tokens: chain.tokens.map((t) => ({
        symbol: t.symbol,
        address: t.address,
        decimals: t.decimals,
        permit: { name: t.permit.name, version: t.permit.version },
      })),
    })),
  };
}
