import { execFileSync } from 'node:child_process';
import { createPublicClient, http, parseAbi } from 'viem';

/** `git status --porcelain` of `repoRoot`, or undefined outside a git checkout. */
export function gitStatus(repoRoot: string): string | undefined {
  try {
    return execFileSync('git', ['status', '--porcelain'], { cwd: repoRoot, encoding: 'utf8' });
  } catch {
    return undefined; // not a git checkout
  }
}

/** The escrow's `orderStatus` of `orderHash` (0 None, 1 Active, 2 Settled, 3 Refunded), read from the chain itself. */
export function escrowOrderStatus(rpcUrl: string, escrow: `0x${string}`, orderHash: `0x${string}`) {
  return createPublicClient({ transport: http(rpcUrl) }).readContract({
    address: escrow,
    abi: parseAbi(['function orderStatus(bytes32) view returns (uint8)']),
    functionName: 'orderStatus',
    args: [orderHash],
  });
}

/** Whether transaction `hash` moved tokens to `to` (a Transfer log whose recipient topic is `to`). */
export async function paysIn(rpcUrl: string, hash: `0x${string}`, to: string): Promise<boolean> {
  const receipt = await createPublicClient({ transport: http(rpcUrl) }).getTransactionReceipt({ hash });
  return receipt.logs.some((log) => log.topics[2]?.toLowerCase().endsWith(to.slice(2).toLowerCase()));
}
