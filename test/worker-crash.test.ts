import { createPublicClient, http, parseAbiItem } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { approveEscrow, fillSwap } from './support/chain-actors.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';
import { startWorkerProcess } from './support/worker-process.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const deposited = parseAbiItem(
  'event Deposited(bytes32 indexed orderHash, address indexed offerer, address inputToken, uint256 inputAmount)',
);
// Each case starts two or three worker processes; on a loaded machine one start alone can take 15 s.
const CASE_TIMEOUT_MS = 180_000;
const settled = parseAbiItem('event Settled(bytes32 indexed orderHash, address indexed filler)');

/**
 * The worker process is killed with SIGKILL at each point of a chain action (before it is written down,
 * after it is written, after it is sent, after it is confirmed), then restarted. The order still completes
 * and the escrow shows exactly one deposit and one settle for it.
 */
describe('a worker killed at any step neither loses an order nor sends a transaction twice', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    // The filler of the prove cases leaves its fill unproven: the worker proves it a second after the fill.
    h = await startHarness(
      { rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      { chains: { proveAfterSeconds: 1 } },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function escrowEvents(orderHash: `0x${string}`) {
    const chain = h.registry.chain(h.chainA)!;
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    const args = {
      address: chain.contracts.escrow,
      args: { orderHash },
      fromBlock: 0n,
      toBlock: 'latest' as const,
    };
    return {
      deposits: (await client.getLogs({ ...args, event: deposited })).length,
      settles: (await client.getLogs({ ...args, event: settled })).length,
    };
  }

  async function runCrashing(points: string[]) {
    const crashing = startWorkerProcess(h, points);
    // A worker that never reaches its crash point must not outlive the test: stop it, and fail.
    const timer = setTimeout(() => void crashing.stop(), 60_000);
    const result = await crashing.exited.finally(() => clearTimeout(timer));
    expect(result.signal, `worker should die at ${points.join(',')}`).toBe('SIGKILL');
  }

  const stages = ['before-record', 'after-record', 'after-send', 'after-confirm'];
  it.each(stages)(
    'killed %s:deposit, restarted: completes with one deposit and one settle',
    async (stage) => {
      const input = 1_000_000n;
      await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
      const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });

      await runCrashing([`${stage}:deposit`]);
      const worker = startWorkerProcess(h);
      try {
        await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
        await fillSwap(h, lpWallet, swap, 990_000n);
        await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 60_000);
      } finally {
        await worker.stop();
      }
      expect(await escrowEvents(swap.orderHash)).toEqual({ deposits: 1, settles: 1 });
    },
    CASE_TIMEOUT_MS,
  );

  it.each(stages)(
    'killed %s:prove, restarted: completes with one deposit and one settle',
    async (stage) => {
      const input = 1_000_000n;
      await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
      const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
      const first = startWorkerProcess(h);
      try {
        await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
      } finally {
        await first.stop();
      }
      await fillSwap(h, lpWallet, swap, 990_000n, { prove: false });

      await runCrashing([`${stage}:prove`]);
      const worker = startWorkerProcess(h);
      try {
        await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 60_000);
      } finally {
        await worker.stop();
      }
      expect(await escrowEvents(swap.orderHash)).toEqual({ deposits: 1, settles: 1 });
    },
    CASE_TIMEOUT_MS,
  );
});
