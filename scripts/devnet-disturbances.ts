/**
 * The devnet controls of scripts/settlement-conditions.ts: raw anvil RPC, a repeated disturbance, receipts that
 * may not exist yet, and how the fees of a transaction's attempts are shown.
 */
import { formatGwei, type Hex, type PublicClient, TransactionReceiptNotFoundError } from 'viem';

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
