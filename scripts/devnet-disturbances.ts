/**
 * The devnet controls of scripts/settlement-conditions.ts: raw anvil RPC, a repeated disturbance and the
 * disturbances themselves (wiped mempools, a fee spike, a drained balance, a reorg), receipts that may not exist
 * yet, and how the fees of a transaction's attempts are shown.
 */
import {
  type Address,
  formatGwei,
  type Hex,
  type PublicClient,
  parseGwei,
  TransactionReceiptNotFoundError,
} from 'viem';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;

export function rpcOf(client: PublicClient) {
  return (method: string, params: unknown[] = []) =>
    client.request({ method: method as never, params: params as never });
}

/** Repeats `work` every `everyMs` until the returned stop function is called or `seconds` have passed. */
export function repeat(work: () => Promise<unknown>, everyMs: number, seconds: number) {
  let stopped = false;
  const until = Date.now() + seconds * 1000;
  const loop = (async () => {
    while (!stopped && Date.now() < until) {
      await work().catch(() => {});
      await sleep(everyMs);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

export async function receiptOf(client: PublicClient, hash: Hex) {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

/** The first attempt's maxFeePerGas and, when it was replaced, the last one's: `1.5→3 gwei (2 tx)`. */
export function feesText(attempts: { maxFeePerGas: bigint }[]): string {
  const [first, last] = [attempts[0], attempts.at(-1)];
  if (!first || !last) return 'none';
  const fees =
    first === last
      ? formatGwei(first.maxFeePerGas)
      : `${formatGwei(first.maxFeePerGas)}→${formatGwei(last.maxFeePerGas)}`;
  return `${fees} gwei (${attempts.length} tx)`;
}

type Stop = () => Promise<void>;

/** Drops every pending transaction on each chain every `everyMs` for `seconds`, calling `onWipe` each time. */
export function wipeMempools(
  clients: PublicClient[],
  everyMs: number,
  seconds: number,
  onWipe: () => void,
): Stop {
  const stops = clients.map((c) =>
    repeat(
      async () => {
        await rpcOf(c)('anvil_dropAllTransactions');
        onWipe();
      },
      everyMs,
      seconds,
    ),
  );
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

/** Holds the base fee at `gwei` on each chain for `seconds`. */
export function holdBaseFee(clients: PublicClient[], gwei: string, seconds: number): Stop {
  // anvil's next-block base fee lasts one block: set again every 200 ms, on every chain.
  const stops = clients.map((c) =>
    repeat(() => rpcOf(c)('anvil_setNextBlockBaseFeePerGas', [hex(parseGwei(gwei))]), 200, seconds),
  );
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

/**
 * Sets the native balance of `address` (`what` in the notes) to 0 and restores it after `seconds` (or when
 * stopped, whichever is first).
 */
export async function drainBalance(
  client: PublicClient,
  address: Address,
  what: string,
  seconds: number,
  note: (text: string) => void,
): Promise<Stop> {
  const previous = await client.getBalance({ address, blockTag: 'latest' });
  await rpcOf(client)('anvil_setBalance', [address, hex(0n)]);
  let restored = false;
  const restore = async () => {
    if (restored) return;
    restored = true;
    await rpcOf(client)('anvil_setBalance', [address, hex(previous)]);
  };
  const timer = setTimeout(() => {
    restore()
      .then(() => note(`${what} funded again after ${seconds} s`))
      .catch((error) => note(`restoring the ${what} failed: ${(error as Error).message}`));
  }, seconds * 1000);
  return async () => {
    clearTimeout(timer);
    await restore();
  };
}

/** Removes the transaction `txHashes` lists (`what` in the notes) from the chain once it is in a block (once). */
export function reorgOnceMined(
  client: PublicClient,
  what: string,
  txHashes: () => Promise<Hex[]>,
  note: (text: string) => void,
): Stop {
  let done = false;
  return repeat(
    async () => {
      if (done) return;
      for (const hash of await txHashes()) {
        const receipt = await receiptOf(client, hash);
        if (!receipt) continue;
        const latest = await client.getBlockNumber({ cacheTime: 0 });
        const depth = Number(latest - receipt.blockNumber + 1n);
        await rpcOf(client)('anvil_reorg', [depth, []]);
        note(`${what} reorged out (depth ${depth})`);
        done = true;
      }
    },
    100,
    60,
  );
}
