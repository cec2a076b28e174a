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
const settled = parseAbiItem('event Settled(bytes32 indexed orderHash, address indexed filler)');
const proofSent = parseAbiItem(
  'event ProofSent(bytes32 indexed guid, uint32 indexed dstEid, bytes32[] orderHashes)',
);
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
        // Filled without a proof: the workers' fallback proves each fill (exactly once between them).
        await fillSwap(h, lpWallet, swap, 990_000n, { prove: false });
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
    const output = h.registry.chain(h.chainB)!;
    const proofs = await createPublicClient({ transport: http(output.rpcUrl) }).getLogs({
      address: output.contracts.fill,
      event: proofSent,
      fromBlock: 0n,
      toBlock: 'latest',
    });
    const proven = proofs.flatMap((l) => l.args.orderHashes ?? []);
    for (const swap of swaps) {
      expect(deposits.filter((l) => l.args.orderHash === swap.orderHash)).toHaveLength(1);
      expect(settles.filter((l) => l.args.orderHash === swap.orderHash)).toHaveLength(1);
      // The LP did not prove its fills: one of the two workers did, once.
      expect(proven.filter((hash) => hash === swap.orderHash)).toHaveLength(1);
    }
    const actions = await h.app.database.db
      .selectFrom('chain_actions')
      .select(['order_id', 'kind', 'chain', 'nonce'])
      .execute();
    const kinds = (kind: string) => actions.filter((a) => a.kind === kind).map((a) => a.order_id);
    const orderIds = swaps.map((s) => s.orderId).sort();
    expect(kinds('deposit').sort()).toEqual(orderIds);
    // Fallback proves of one pass go out as one message per route: the action is one order's, the others linked to
    // it. Every order is served by exactly one prove, its own or a linked one.
    const links = await h.app.database.db
      .selectFrom('chain_action_orders')
      .select('order_id')
      .where('kind', '=', 'prove')
      .execute();
    expect([...kinds('prove'), ...links.map((l) => l.order_id)].sort()).toEqual(orderIds);
    // No nonce used twice on one chain, whichever worker sent.
    expect(new Set(actions.map((a) => `${a.chain}:${a.nonce}`)).size).toBe(actions.length);
  }, 240_000);
});
