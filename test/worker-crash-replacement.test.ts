import { createPublicClient, type Hex, http, parseAbiItem, TransactionReceiptNotFoundError } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { type AnvilKnobs, anvilKnobs } from './support/anvil-knobs.ts';
import { approveEscrow } from './support/chain-actors.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';
import { startWorkerProcess } from './support/worker-process.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const deposited = parseAbiItem(
  'event Deposited(bytes32 indexed orderHash, address indexed offerer, address inputToken, uint256 inputAmount)',
);

/**
 * The worker is killed with SIGKILL while it replaces a deposit that was not mined in time (no blocks are
 * produced, and the chain replaces after 1 s), then restarted with blocks flowing again. Whatever was
 * recorded or sent, exactly one of the action's transactions is mined: they all share one nonce.
 */
describe('a worker killed during a fee replacement never gets two transactions mined for one action', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let chainA: AnvilKnobs;

  beforeAll(async () => {
    h = await startHarness(
      { rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      { chains: { replaceAfterSeconds: 1 } },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    chainA = anvilKnobs(h.registry.chain(h.chainA)!.rpcUrl);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function depositTxs(orderId: string) {
    return h.app.database.db
      .selectFrom('chain_action_txs')
      .innerJoin('chain_actions', 'chain_actions.id', 'chain_action_txs.action_id')
      .select('chain_action_txs.tx_hash')
      .where('chain_actions.order_id', '=', orderId)
      .where('chain_actions.kind', '=', 'deposit')
      .execute();
  }

  async function mined(hash: string): Promise<boolean> {
    try {
      await chainA.client.getTransactionReceipt({ hash: hash as Hex });
      return true;
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return false;
      throw error;
    }
  }

  it.each(['before-replace', 'after-replace-record', 'after-replace-send'])(
    'killed %s:deposit, restarted: one deposit transaction mined',
    async (stage) => {
      const input = 1_000_000n;
      await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
      const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
      await chainA.blockTime(0);
      try {
        const crashing = startWorkerProcess(h, [`${stage}:deposit`]);
        const timer = setTimeout(() => void crashing.stop(), 60_000);
        const result = await crashing.exited.finally(() => clearTimeout(timer));
        expect(result.signal, `worker should die at ${stage}:deposit`).toBe('SIGKILL');
      } finally {
        await chainA.instant();
      }
      const worker = startWorkerProcess(h);
      try {
        await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
      } finally {
        await worker.stop();
      }
      const txs = await depositTxs(swap.orderId);
      expect(txs.length).toBeGreaterThanOrEqual(stage === 'before-replace' ? 1 : 2);
      const minedCount = (await Promise.all(txs.map((tx) => mined(tx.tx_hash)))).filter(Boolean).length;
      expect(minedCount).toBe(1);
      const chain = h.registry.chain(h.chainA)!;
      const logs = await createPublicClient({ transport: http(chain.rpcUrl) }).getLogs({
        address: chain.contracts.escrow,
        event: deposited,
        args: { orderHash: swap.orderHash },
        fromBlock: 0n,
        toBlock: 'latest',
      });
      expect(logs).toHaveLength(1);
    },
    // Two worker processes start per case; on a loaded machine each start alone can take 15 s.
    150_000,
  );
});
