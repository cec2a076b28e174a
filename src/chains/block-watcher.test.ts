import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startAnvil } from '../devnet/anvil-process.ts';
import { createBlockWatcher } from './block-watcher.ts';
import { createChainRegistry } from './chain-registry.ts';

const NOWHERE = '0x0000000000000000000000000000000000000001';
const CHAIN_ID = 920011;

async function rpc(url: string, method: string, params: unknown[] = []) {
  await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('createBlockWatcher', () => {
  it('reports each new block of a chain with a wsUrl, nothing while it is idle, and resubscribes after the node restarts', async () => {
    let anvil = await startAnvil({ chainId: CHAIN_ID });
    const registry = createChainRegistry({
      chains: [
        {
          name: 'watched',
          chainId: CHAIN_ID,
          rpcUrl: anvil.rpcUrl,
          wsUrl: anvil.rpcUrl.replace(/^http/, 'ws'),
          contracts: { escrow: NOWHERE, fill: NOWHERE },
          tokens: [],
        },
        {
          name: 'unwatched',
          chainId: CHAIN_ID + 1,
          rpcUrl: 'http://127.0.0.1:1',
          contracts: { escrow: NOWHERE, fill: NOWHERE },
          tokens: [],
        },
      ],
    });
    const seen: string[] = [];
    const watcher = createBlockWatcher({
      registry,
      log: pino({ level: 'silent' }),
      onBlock: (chain) => seen.push(chain),
    });
    expect(watcher.chains).toEqual(['watched']);
    watcher.start();
    try {
      // The subscription itself counts as one: blocks before it are not replayed.
      await until(() => seen.length === 1, 'the subscription');
      for (let i = 0; i < 3; i++) await rpc(anvil.rpcUrl, 'evm_mine');
      await until(() => seen.length === 4, 'three blocks');
      // An instant devnet mines nothing while idle: nothing is reported.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(seen).toHaveLength(4);

      const port = anvil.port;
      await anvil.stop();
      anvil = await startAnvil({ chainId: CHAIN_ID, port });
      await until(() => seen.length === 5, 'the subscription after the restart');
      await rpc(anvil.rpcUrl, 'evm_mine');
      await until(() => seen.length === 6, 'a block after the restart');
      expect(new Set(seen)).toEqual(new Set(['watched']));
    } finally {
      await watcher.stop();
      await anvil.stop();
    }
  });
});
