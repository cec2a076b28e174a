import { createPublicClient, http } from 'viem';

/**
 * anvil's RPC knobs for real-chain conditions: slow blocks, base-fee spikes, wiped mempools, reorgs.
 * Each returns once anvil has applied it.
 */
export function anvilKnobs(rpcUrl: string) {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const rpc = (method: string, params: unknown[] = []) =>
    client.request({ method: method as never, params: params as never });
  const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;
  return {
    client,
    /** Blocks every `seconds` (0: only on `mine`); automine off, so a transaction waits for the next block. */
    async blockTime(seconds: number) {
      await rpc('evm_setAutomine', [false]);
      await rpc('evm_setIntervalMining', [seconds]);
    },
    async instant() {
      await rpc('evm_setIntervalMining', [0]);
      await rpc('evm_setAutomine', [true]);
    },
    mine: (blocks = 1) => rpc('anvil_mine', [hex(blocks)]),
    nextBaseFee: (wei: bigint) => rpc('anvil_setNextBlockBaseFeePerGas', [hex(wei)]),
    dropAll: () => rpc('anvil_dropAllTransactions'),
    reorg: (depth: number) => rpc('anvil_reorg', [depth, []]),
    setBalance: (address: string, wei: bigint) => rpc('anvil_setBalance', [address, hex(wei)]),
    poolSize: async () => {
      const status = (await rpc('txpool_status')) as { pending: string; queued: string };
      return Number(BigInt(status.pending) + BigInt(status.queued));
    },
    /**
     * Holds the base fee at `wei` by setting it again every `everyMs` (anvil's setting lasts one block), until
     * the returned stop function is called.
     */
    holdBaseFee(wei: bigint, everyMs = 200) {
      let stopped = false;
      const loop = (async () => {
        while (!stopped) {
          await rpc('anvil_setNextBlockBaseFeePerGas', [hex(wei)]).catch(() => {});
          await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
      })();
      return async () => {
        stopped = true;
        await loop;
      };
    },
    /** Wipes the mempool every `everyMs` until the returned stop function is called. */
    wipeMempool(everyMs: number) {
      let stopped = false;
      const loop = (async () => {
        while (!stopped) {
          await rpc('anvil_dropAllTransactions').catch(() => {});
          await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
      })();
      return async () => {
        stopped = true;
        await loop;
      };
    },
  };
}

export type AnvilKnobs = ReturnType<typeof anvilKnobs>;
