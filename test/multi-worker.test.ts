import { createPublicClient, http, parseAbiItem } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/chains/devnet.ts';
import { approveEscrow, fillSwap } from './support/chain-actors.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';
import { startWorkerProcess } from './support/worker-process.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const deposited = parseAbiItem(
  'event Deposited(bytes32 indexed orderHash, address indexed offerer, address inputToken, uint256 inputAmount)',
);
const settled = parseAbiItem('event Settled(bytes32 indexed orderHash, address indexed filler)');
const ORDERS = 6;

describe.skipIf(!process.env.FERRY_TEST_PG)('two workers on one PostgreSQL database', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('process each order exactly once', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 1_000_000n * BigInt(ORDERS));
    const swaps = [];
    for (let i = 0; i < ORDERS; i++)
      swaps.push(await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n }));

    const workers = [startWorkerProcess(h), startWorkerProcess(h)];
    try {
      for (const swap of swaps) {
        await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
        await fillSwap(h, lpWallet, swap, 990_000n);
      }
      for (const swap of swaps) await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 60_000);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }

    const chain = h.registry.chain(h.chainA)!;
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    const range = { address: chain.contracts.escrow, fromBlock: 0n, toBlock: 'latest' as const };
    const deposits = await client.getLogs({ ...range, event: deposited });
    const settles = await client.getLogs({ ...range, event: settled });
    for (const swap of swaps) {
      expect(deposits.filter((l) => l.args.orderHash === swap.orderHash)).toHaveLength(1);
      expect(settles.filter((l) => l.args.orderHash === swap.orderHash)).toHaveLength(1);
    }
    const actions = await h.app.database.db
      .selectFrom('chain_actions')
      .select(['order_id', 'kind', 'nonce'])
      .execute();
    expect(actions).toHaveLength(ORDERS * 2);
    expect(new Set(actions.map((a) => a.nonce)).size).toBe(actions.length);
  }, 240_000);
});
