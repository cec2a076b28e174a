import {
  encodeFunctionData,
  erc20Abi,
  type Hex,
  keccak256,
  parseGwei,
  TransactionReceiptNotFoundError,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import { type AnvilKnobs, anvilKnobs } from './support/anvil-knobs.ts';
import { approveEscrow, fillSwap } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const fillAbi = loadArtifact('FerryFill').abi;
const SPIKE_MS = 40_000;

/**
 * Settlement with blocks every second, as on a real network, and the events of one: a base-fee spike right
 * after a swap, mempools wiped over and over. Ferry's own transactions are replaced or broadcast again by
 * the transaction client until they are mined. (The plain cases on 1-second blocks are in settlement.test.ts.)
 */
describe('settlement on chains with 1-second blocks', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let chainA: AnvilKnobs;
  let chainB: AnvilKnobs;

  beforeAll(async () => {
    h = await startHarness(
      { worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      // proveAfterSeconds: the wiped-mempool LP fills without a proof; the worker proves it a block later.
      { chains: { replaceAfterSeconds: 3, proveAfterSeconds: 1 } },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    chainA = anvilKnobs(h.registry.chain(h.chainA)!.rpcUrl);
    chainB = anvilKnobs(h.registry.chain(h.chainB)!.rpcUrl);
    await chainA.blockTime(1);
    await chainB.blockTime(1);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function actionTxs(orderId: string, kind: string) {
    return h.app.database.db
      .selectFrom('chain_action_txs')
      .innerJoin('chain_actions', 'chain_actions.id', 'chain_action_txs.action_id')
      .select(['chain_action_txs.tx_hash', 'chain_action_txs.max_fee_per_gas'])
      .where('chain_actions.order_id', '=', orderId)
      .where('chain_actions.kind', '=', kind)
      .orderBy('chain_action_txs.attempt')
      .execute();
  }

  it('a base-fee spike right after a swap: the deposit is replaced and the swap completes during the spike', async () => {
    const input = 1_000_000n;
    const output = 990_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const worker = h.app.worker!;
    await worker.stop();
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    // The deposit is signed and sent at the fees of the moment; then the spike lands before any block.
    await chainA.blockTime(0);
    await worker.runOnce();
    const [sent] = await actionTxs(swap.orderId, 'deposit');
    expect(sent).toBeDefined();
    const spikeStarted = Date.now();
    const release = chainA.holdBaseFee(parseGwei('500'));
    try {
      await chainA.nextBaseFee(parseGwei('500'));
      await chainA.mine();
      await chainA.blockTime(1);
      worker.start();
      await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', SPIKE_MS);
      await fillSwap(h, lpWallet, swap, output);
      await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', SPIKE_MS - (Date.now() - spikeStarted));
      // Still inside the spike: the fees were raised, the spike was not waited out.
      expect(Date.now() - spikeStarted).toBeLessThan(SPIKE_MS);
    } finally {
      await release();
      await chainA.nextBaseFee(parseGwei('1'));
    }
    const deposits = await actionTxs(swap.orderId, 'deposit');
    expect(deposits.length).toBeGreaterThanOrEqual(2);
    expect(BigInt(deposits.at(-1)!.max_fee_per_gas)).toBeGreaterThan(parseGwei('500'));
    const order = (await h.http('GET', `/api/v1/orders/${swap.orderId}`, { apiKey: mm.apiKey })).body.data;
    expect(deposits.map((d) => d.tx_hash)).toContain(order.details.srcChainTxHash);
  });

  it('mempools wiped every 700 ms for 15 s: the swap completes', async () => {
    const input = 1_000_000n;
    const output = 990_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    const stops = [chainA.wipeMempool(700), chainB.wipeMempool(700)];
    const wipesEnd = setTimeout(() => void Promise.all(stops.map((stop) => stop())), 15_000);
    try {
      await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
      // The LP's own transactions are wiped too: it keeps sending them until they are mined.
      const fill = h.registry.chain(h.chainB)!.contracts.fill;
      await sendUntilMined(chainB, lpWallet, h.usdcB, approveData(fill, output));
      await sendUntilMined(
        chainB,
        lpWallet,
        fill,
        encodeFunctionData({
          abi: fillAbi,
          functionName: 'fill',
          args: [orderTermsFrom(swap.typedData), swap.typedData.domain.verifyingContract],
        }),
      );
      await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 60_000);
    } finally {
      clearTimeout(wipesEnd);
      await Promise.all(stops.map((stop) => stop()));
    }
  });
});

function approveData(spender: Hex, amount: bigint): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] });
}

/** Signs once, then broadcasts the same bytes every 250 ms until they are in a block. */
async function sendUntilMined(chain: AnvilKnobs, account: PrivateKeyAccount, to: Hex, data: Hex) {
  const client = chain.client;
  const [nonce, fees, chainId] = await Promise.all([
    client.getTransactionCount({ address: account.address, blockTag: 'latest' }),
    client.estimateFeesPerGas(),
    client.getChainId(),
  ]);
  const gas = await client.estimateGas({ account: account.address, to, data });
  const raw = await account.signTransaction({
    chainId,
    type: 'eip1559',
    to,
    data,
    nonce,
    gas: gas * 2n,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  const deadline = Date.now() + 60_000;
  const hash = keccak256(raw);
  while (Date.now() < deadline) {
    await client.sendRawTransaction({ serializedTransaction: raw }).catch(() => null);
    try {
      const receipt = await client.getTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return hash;
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('transaction was never mined');
}
