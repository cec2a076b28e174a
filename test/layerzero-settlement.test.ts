import { recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillAttestationTypedData } from '../src/chains/settlement/fill-attestation.ts';
import { ANVIL_KEYS, DEVNET_WORKER_KEYS } from '../src/devnet/devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import { approveEscrow, catchUpClock, fillSwap } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { devnetClient, packetOf, verifyByDvns } from './support/lz-messages.ts';
import { until } from './support/polling.ts';
import { WsClient, wsUrl } from './support/stream-clients.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const HASH = /^0x[0-9a-f]{64}$/;

async function setup(messenger: 'layerzero' | 'attester') {
  const h = await startHarness(
    { worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
    // The fallbacks wait on the worker's clock, which the test moves by hand (past one, never the other by
    // accident: the executor's wait is far longer).
    { messenger, chains: { proveAfterSeconds: 5, executeAfterSeconds: 600 } },
  );
  const mm = await h.createAccount('moneyMover');
  const lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  return { h, mm, lp };
}

async function swapDeposited(h: Harness, mm: { apiKey: string }, lp: { apiKey: string; id: string }) {
  const input = 2_000_000n;
  const output = 1_990_000n;
  await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
  const swap = await executeSwap(h, { mm, lp }, { input, output });
  await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 20_000);
  return { swap, output };
}

const orderView = async (h: Harness, apiKey: string, id: string) =>
  (await h.http('GET', `/api/v1/orders/${id}`, { apiKey })).body.data;

/** Waits until the order view's settlement message reaches `status`, and answers the view. */
async function settlementReaches(h: Harness, apiKey: string, id: string, status: string) {
  return until(
    `settlement ${status}`,
    async () => {
      const view = await orderView(h, apiKey, id);
      return view.details.settlement?.status === status ? view : null;
    },
    20_000,
  );
}

describe('settlement through LayerZero', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  beforeAll(async () => {
    ({ h, mm, lp } = await setup('layerzero'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('completes a swap the filler proves itself; the order shows the LayerZero message delivered', async () => {
    const { swap, output } = await swapDeposited(h, mm, lp);
    const fillTx = await fillSwap(h, lpWallet, swap, output);
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 20_000);
    expect(completed.details.dstChainTxHash).toBe(fillTx);
    expect(completed.details.settlement).toMatchObject({
      method: 'layerzero',
      status: 'delivered',
      txHash: fillTx,
      attestation: null,
    });
    expect(completed.details.settlement.messageId).toMatch(HASH);
    expect(completed.details.settlementTxHash).toMatch(HASH);
    const pub = (await h.http('GET', `/api/public/orders/${swap.orderId}`)).body.data.order;
    expect(pub).toMatchObject({
      settlementMethod: 'layerzero',
      messageId: completed.details.settlement.messageId,
      settlementStatus: 'delivered',
    });
  });

  it('proves a fill nobody proved after proveAfterSeconds, and the order completes', async () => {
    const { swap, output } = await swapDeposited(h, mm, lp);
    const fillTx = await fillSwap(h, lpWallet, swap, output, { prove: false });
    const filled = await waitForStatus(h, mm.apiKey, swap.orderId, 'filled', 20_000);
    expect(filled.details.settlement).toBeNull();
    await catchUpClock(h);
    h.clock.advance(10);
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 20_000);
    const { settlement } = completed.details;
    expect(settlement).toMatchObject({ method: 'layerzero', status: 'delivered' });
    // The message went out in the worker's prove, not in the fill.
    expect(settlement.txHash).toMatch(HASH);
    expect(settlement.txHash).not.toBe(fillTx);
    const receipt = await publicClient(h, h.chainB).getTransactionReceipt({ hash: settlement.txHash });
    expect(receipt.from.toLowerCase()).toBe(
      privateKeyToAccount(DEVNET_WORKER_KEYS.relayer).address.toLowerCase(),
    );
  });

  it('delivers a verified message itself when the executor is down: sent → verified → delivered', async () => {
    await h.devnets.relay?.stop();
    try {
      const { swap, output } = await swapDeposited(h, mm, lp);
      const fillTx = await fillSwap(h, lpWallet, swap, output);
      const sent = await settlementReaches(h, lp.apiKey, swap.orderId, 'sent');
      expect(sent.details.settlement.txHash).toBe(fillTx);
      const pub = (await h.http('GET', `/api/public/orders/${swap.orderId}`)).body.data.order;
      expect(pub).toMatchObject({
        settlementMethod: 'layerzero',
        messageId: sent.details.settlement.messageId,
      });

      // Only the DVNs' part: each verifies the packet on the input chain with its own key.
      const packet = await packetOf(h, fillTx);
      expect(packet.guid).toBe(sent.details.settlement.messageId);
      await verifyByDvns(h, packet);
      await settlementReaches(h, lp.apiKey, swap.orderId, 'verified');
      expect((await orderView(h, mm.apiKey, swap.orderId)).status).toBe('filled');

      await catchUpClock(h);
      h.clock.advance(700);
      const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 20_000);
      expect(completed.details.settlement).toMatchObject({
        status: 'delivered',
        messageId: packet.guid,
        txHash: fillTx,
      });
      const delivery = await publicClient(h, h.chainA).getTransactionReceipt({
        hash: completed.details.settlementTxHash,
      });
      expect(delivery.from.toLowerCase()).toBe(
        privateKeyToAccount(DEVNET_WORKER_KEYS.relayer).address.toLowerCase(),
      );
    } finally {
      h.devnets.startRelay();
    }
  });
});

describe('settlement through the attester', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  beforeAll(async () => {
    ({ h, mm, lp } = await setup('attester'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('completes a swap and hands the attestation to the filler as soon as it is signed', async () => {
    const ws = await WsClient.connect(wsUrl(h.baseUrl), { 'x-api-key': lp.apiKey });
    await ws.request({ op: 'subscribe', channels: ['account'] }, (f) => f.op === 'subscribed');
    const { swap, output } = await swapDeposited(h, mm, lp);
    const fillTx = await fillSwap(h, lpWallet, swap, output);
    const attested = await ws.waitFor((f) => f.op === 'event' && f.event.type === 'order.attested');
    const completedEvent = await ws.waitFor(
      (f) => f.op === 'event' && f.event.type === 'order.updated' && f.event.data.status === 'completed',
    );
    // Announced before the order completed: the filler could relay it itself.
    expect(attested.event.id).toBeLessThan(completedEvent.event.id);
    expect(attested.event.data).toMatchObject({ id: swap.orderId, settlementMethod: 'attester' });
    expect(JSON.stringify(attested.event.data)).not.toMatch(/signature/);
    await ws.close();

    const lpView = await orderView(h, lp.apiKey, swap.orderId);
    expect(lpView.status).toBe('completed');
    const { settlement } = lpView.details;
    expect(settlement).toMatchObject({ method: 'attester', status: 'delivered' });
    expect(settlement.txHash).toBe(lpView.details.settlementTxHash);
    // The attestation binds the filler and the fill's block time, and is signed by the key the messenger trusts.
    const fillBlock = await publicClient(h, h.chainB).getTransactionReceipt({ hash: fillTx });
    const block = await publicClient(h, h.chainB).getBlock({ blockNumber: fillBlock.blockNumber });
    expect(settlement.attestation.fillTime).toBe(block.timestamp.toString());
    const input = h.registry.chain(h.chainA)!;
    const terms = orderTermsFrom(swap.typedData);
    const signer = await recoverTypedDataAddress({
      ...fillAttestationTypedData({
        messenger: settlement.attestation.messenger,
        escrow: settlement.attestation.escrow,
        inputChainId: input.chainId,
        orderHash: lpView.blockchainOrderId,
        filler: terms.filler,
        fillTime: BigInt(settlement.attestation.fillTime),
      }),
      signature: settlement.attestation.signature,
    });
    expect(signer).toBe(h.devnets.attester);
    // The money mover sees the message, not the attestation.
    const mmView = await orderView(h, mm.apiKey, swap.orderId);
    expect(mmView.details.settlement).toMatchObject({ method: 'attester', attestation: null });
  });
});

const publicClient = devnetClient;
