import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { approveEscrow, fillSwap } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { type LogsCall, type RpcFaultProxy, startRpcFaultProxy } from './support/rpc-fault-proxy.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

/**
 * Ferry's log scans against an RPC that behaves like a public one: eth_getLogs over more than 500 blocks is
 * refused, one request in ten is dropped, every answer is a little late, and both chains are more than 2,000 blocks past the deployment, so the
 * scan must page and halve its range.
 */

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const RPC_LIMIT = 500;
const EMPTY_BLOCKS = 2_100;

async function anvil(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

async function waitUntil(what: string, ms: number, probe: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} not within ${ms} ms`);
}

const span = (call: LogsCall) => call.toBlock - call.fromBlock + 1n;

describe('bounded log scans through a faulty RPC', () => {
  let h: Harness;
  const proxies: RpcFaultProxy[] = [];
  const upstreams: string[] = [];
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness(
      { worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      {
        registry: async (file) => {
          // Empty blocks after the deployment: scanning them takes several ranges of at most 500 blocks. anvil
          // mines them at a few milliseconds each, so both chains mine at once.
          await Promise.all(
            file.chains.map((chain) => anvil(chain.rpcUrl, 'anvil_mine', [`0x${EMPTY_BLOCKS.toString(16)}`])),
          );
          const chains = [];
          for (const chain of file.chains) {
            const proxy = await startRpcFaultProxy({
              upstream: chain.rpcUrl,
              maxLogRange: RPC_LIMIT,
              dropEvery: 10,
              latencyMs: 5,
            });
            proxies.push(proxy);
            upstreams.push(chain.rpcUrl);
            chains.push({ ...chain, rpcUrl: proxy.url });
          }
          return { chains };
        },
      },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  }, 180_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all(proxies.map((p) => p.close()));
  });

  it('a whole swap settles; every range the RPC answered was within its limit, after halving', async () => {
    const input = 2_000_000n;
    const output = 1_990_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
    const fillTx = await fillSwap(h, lpWallet, swap, output);
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 60_000);
    expect(completed.details.dstChainTxHash).toBe(fillTx);

    const outputChain = h.registry.chain(h.chainB)!;
    const proxyB = proxies[1]!;
    const refused = proxyB.logs.filter((c) => c.outcome === 'range');
    const answered = proxyB.logs.filter((c) => c.outcome === 'answered');
    // The registry allows 2,000 blocks: the RPC refused wider ranges, and Ferry halved until it accepted them.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((c) => span(c) > BigInt(RPC_LIMIT))).toBe(true);
    expect(proxyB.logs.every((c) => span(c) <= BigInt(outputChain.maxLogRange))).toBe(true);
    expect(answered.every((c) => span(c) <= BigInt(RPC_LIMIT))).toBe(true);
    expect(proxies.every((p) => p.stats.dropped > 0)).toBe(true);

    // The answered ranges tile the chain from the deployment block on, without gap and without block 0.
    const starts = [...new Map(answered.map((c) => [c.fromBlock, c])).values()].sort((a, b) =>
      a.fromBlock < b.fromBlock ? -1 : 1,
    );
    expect(outputChain.startBlock).toBeGreaterThan(0n);
    expect(starts[0]?.fromBlock).toBe(outputChain.startBlock);
    for (let i = 1; i < starts.length; i++) expect(starts[i]!.fromBlock).toBe(starts[i - 1]!.toBlock + 1n);
    expect(starts.at(-1)!.toBlock).toBeGreaterThan(outputChain.startBlock + BigInt(EMPTY_BLOCKS));
  });

  it('a restarted worker resumes its scan at the stored cursor instead of the start block', async () => {
    const outputChain = h.registry.chain(h.chainB)!;
    const proxyB = proxies[1]!;
    const cursorBefore = await h.app.database.db
      .selectFrom('log_cursors')
      .select('next_block')
      .where('chain', '=', h.chainB)
      .executeTakeFirstOrThrow();
    expect(BigInt(cursorBefore.next_block)).toBeGreaterThan(outputChain.startBlock + BigInt(EMPTY_BLOCKS));

    const mark = proxyB.logs.length;
    await h.restart();
    // A new block to read, so the restarted worker has a reason to call eth_getLogs on chain B.
    await anvil(upstreams[1]!, 'anvil_mine', ['0x1']);
    await waitUntil('a scan after the restart', 30_000, () =>
      proxyB.logs.slice(mark).some((c) => c.outcome === 'answered'),
    );
    const after = proxyB.logs.slice(mark);
    expect(after.every((c) => c.fromBlock >= BigInt(cursorBefore.next_block))).toBe(true);
    expect(after.every((c) => span(c) <= 2n)).toBe(true);
  });
});
