import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { loadLzArtifact } from '../src/chains/layerzero/lz-artifacts.ts';
import type { LzPacket } from '../src/chains/layerzero/lz-packet.ts';
import { ANVIL_KEYS, DEVNET_WORKER_KEYS } from '../src/devnet/devnet.ts';
import { approveEscrow, catchUpClock, fillSwap, proveSwap } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { devnetClient, packetOf, verifyByDvns } from './support/lz-messages.ts';
import { until } from './support/polling.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

// Every LayerZero message the DVNs verified can be delivered: the worker commits older messages on the route that
// block the order's proof, and proves again when the escrow skipped a proof delivered before the deposit.

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const relayer = privateKeyToAccount(DEVNET_WORKER_KEYS.relayer).address.toLowerCase();
const INPUT = 2_000_000n;
const OUTPUT = 1_990_000n;

describe('every verified LayerZero message can be delivered', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  beforeAll(async () => {
    h = await startHarness(
      { worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      // The fallbacks wait on the worker's clock, which the test moves by hand.
      { messenger: 'layerzero', chains: { proveAfterSeconds: 5, executeAfterSeconds: 600 } },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('commits an older verified message nobody committed, so the order completes with the executor down', async () => {
    // A first order completes normally; its fill stays provable by anyone.
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, INPUT);
    const earlier = await executeSwap(h, { mm, lp }, { input: INPUT, output: OUTPUT });
    await waitForStatus(h, mm.apiKey, earlier.orderId, 'deposited', 20_000);
    await fillSwap(h, lpWallet, earlier, OUTPUT);
    await waitForStatus(h, mm.apiKey, earlier.orderId, 'completed', 20_000);

    await h.devnets.relay?.stop();
    try {
      // Someone else (here the order's recipient) proves it again, as anyone may: the DVNs verify that message,
      // and nobody commits or executes it.
      const older = await packetOf(h, await proveSwap(h, h.otherWallet, earlier));
      await verifyByDvns(h, older);

      await approveEscrow(h, h.chainA, h.usdcA, h.offerer, INPUT);
      const swap = await executeSwap(h, { mm, lp }, { input: INPUT, output: OUTPUT });
      await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 20_000);
      const fillTx = await fillSwap(h, lpWallet, swap, OUTPUT);
      const proof = await packetOf(h, fillTx);
      // The order's message comes after the other on the same path.
      expect(proof.nonce).toBe(older.nonce + 1n);
      await verifyByDvns(h, proof);
      await waitForStatus(h, mm.apiKey, swap.orderId, 'filled', 20_000);
      await until(
        'the proof message verified',
        async () =>
          (await h.http('GET', `/api/v1/orders/${swap.orderId}`, { apiKey: mm.apiKey })).body.data.details
            .settlement?.status === 'verified' || null,
        20_000,
      );
      expect(await inboundHash(h, older)).toBe(0n);

      await catchUpClock(h);
      h.clock.advance(700);
      const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 15_000);
      expect(completed.details.settlement).toMatchObject({
        status: 'delivered',
        messageId: proof.guid,
        txHash: fillTx,
      });
      // The worker committed the other message first (it stays committed, deliverable by anyone) and
      // executed the order's own.
      expect(await inboundHash(h, older)).toBe(BigInt(older.payloadHash));
      const delivery = await chainA(h).getTransactionReceipt({ hash: completed.details.settlementTxHash });
      expect(delivery.from.toLowerCase()).toBe(relayer);
    } finally {
      h.devnets.startRelay();
    }
  });

  it('proves again when the escrow skipped a proof delivered before the deposit, and the order completes', async () => {
    await catchUpClock(h);
    // No allowance yet: Ferry cannot deposit, and the order waits `created`.
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 0n);
    const swap = await executeSwap(h, { mm, lp }, { input: INPUT, output: OUTPUT });
    // The filler fills and proves at once; LayerZero delivers the proof to an escrow with nothing deposited.
    const fillTx = await fillSwap(h, lpWallet, swap, OUTPUT);
    const escrow = swap.typedData.domain.verifyingContract;
    const skip = await until(
      'SettleSkipped',
      async () => {
        const logs = await chainA(h).getContractEvents({
          address: escrow,
          abi: loadArtifact('FerryEscrow').abi,
          eventName: 'SettleSkipped',
          args: { orderHash: swap.orderHash },
          fromBlock: 0n,
        });
        return logs[0] ?? null;
      },
      20_000,
    );
    expect((skip as unknown as { args: { reason: number } }).args.reason).toBe(0); // NotActive
    expect((await orderView(h, mm.apiKey, swap.orderId)).status).toBe('created');

    // Now the offerer approves: Ferry deposits and sees the fill, but the delivered proof settled nothing.
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, INPUT);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'filled', 20_000);
    await catchUpClock(h);
    h.clock.advance(10);
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 15_000);
    const { settlement } = completed.details;
    expect(settlement).toMatchObject({ method: 'layerzero', status: 'delivered' });
    // The message that settled it is Ferry's new prove, not the skipped one in the fill.
    expect(settlement.txHash).not.toBe(fillTx);
    const prove = await chainB(h).getTransactionReceipt({ hash: settlement.txHash });
    expect(prove.from.toLowerCase()).toBe(relayer);
    expect(completed.details.settlementTxHash).not.toBe(skip.transactionHash);
  });
});

const orderView = async (h: Harness, apiKey: string, id: string) =>
  (await h.http('GET', `/api/v1/orders/${id}`, { apiKey })).body.data;

const chainA = (h: Harness) => devnetClient(h, h.chainA);
const chainB = (h: Harness) => devnetClient(h, h.chainB);

/** EndpointV2.inboundPayloadHash of the packet on chain A (0: not committed, or executed). */
async function inboundHash(h: Harness, packet: LzPacket): Promise<bigint> {
  const a = h.devnets.chains.find((c) => c.name === h.chainA)!;
  const hash = (await chainA(h).readContract({
    address: a.layerzero!.endpoint,
    abi: loadLzArtifact('EndpointV2').abi,
    functionName: 'inboundPayloadHash',
    args: [packet.receiver, packet.srcEid, packet.sender, packet.nonce],
  })) as Hex;
  return BigInt(hash);
}
