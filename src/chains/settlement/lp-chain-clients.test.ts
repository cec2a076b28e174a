import { RpcRequestError } from 'viem';
import { describe, expect, it } from 'vitest';
import { type ChainClients, provenSince } from './lp-chain-clients.ts';

/**
 * An RPC that caps eth_getLogs' span the way public ones do (the devnet's anvil takes any span): the bot's search
 * for someone else's proof must not ask it for more, however far behind its oldest fill is.
 */
function cappedRpc(latest: bigint, cap: bigint, proofs: Map<bigint, string>) {
  const asked: [bigint, bigint][] = [];
  const client = {
    getBlockNumber: async () => latest,
    getContractEvents: async ({ fromBlock, toBlock }: { fromBlock: bigint; toBlock: bigint }) => {
      asked.push([fromBlock, toBlock]);
      if (toBlock - fromBlock + 1n > cap)
        throw new RpcRequestError({
          body: { method: 'eth_getLogs' },
          error: { code: -32600, message: `eth_getLogs is limited to a ${cap} blocks range` },
          url: 'http://rpc.test',
        });
      return [...proofs]
        .filter(([block]) => block >= fromBlock && block <= toBlock)
        .map(([, hash]) => ({ args: { orderHashes: [hash] } }));
    },
  };
  return { clients: { public: client } as unknown as ChainClients, asked };
}

describe('provenSince', () => {
  it('reads a long span in bounded ranges, halving one the RPC refuses, and misses no proof', async () => {
    const proofs = new Map([
      [10n, '0xAA'],
      [4_999n, '0xbb'],
      [9_000n, '0xcc'],
    ]);
    const { clients, asked } = cappedRpc(9_500n, 700n, proofs);
    const proven = await provenSince(clients, '0x0000000000000000000000000000000000000001', 100n, 2_000);
    expect([...proven].sort()).toEqual(['0xbb', '0xcc']);
    const accepted = asked.filter(([from, to]) => to - from + 1n <= 700n);
    expect(accepted[0]?.[0]).toBe(100n);
    expect(accepted.at(-1)?.[1]).toBe(9_500n);
    for (let i = 1; i < accepted.length; i++)
      expect(accepted[i]?.[0]).toBe((accepted[i - 1]?.[1] ?? 0n) + 1n);
    expect(asked.every(([from, to]) => to - from + 1n <= 2_000n)).toBe(true);
  });

  it('fails on an outage instead of taking it for a refused range', async () => {
    const clients = {
      public: {
        getBlockNumber: async () => 50n,
        getContractEvents: async () => {
          throw new Error('connect ECONNREFUSED');
        },
      },
    } as unknown as ChainClients;
    await expect(provenSince(clients, '0x0000000000000000000000000000000000000001', 1n)).rejects.toThrow(
      'ECONNREFUSED',
    );
  });
});
