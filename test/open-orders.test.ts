import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot, type LpBot } from '../src/lp/lp-bot.ts';
import { type AnvilKnobs, anvilKnobs } from './support/anvil-knobs.ts';
import { recordingBotLog } from './support/bot-log.ts';
import {
  approveEscrow,
  balanceOf,
  chainTime,
  fillOrder,
  increaseChainTime,
  transferToken,
} from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { until } from './support/polling.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const quotedLp = privateKeyToAccount(ANVIL_KEYS[4]);
const secondKey = generatePrivateKey();
const secondLp = privateKeyToAccount(secondKey);
const EXCLUSIVITY = 5;
const INPUT = 2_000_000n;
const OUTPUT = 1_990_000n;

/**
 * The quoted liquidity provider fades: as an operator runs Ferry (blocks every second on both chains, the worker on),
 * the LP whose quote was accepted never fills. Until the order's exclusivityDeadline nobody else may (the fill
 * reverts on chain); once the output chain is past it, the worker tells the liquidity providers
 * (`order.exclusivityLapsed`, GET /api/v1/open-orders), a second LP's reference bot fills it at its own pricing, and
 * the order completes with the second LP paid on the input chain.
 */
describe('an order whose quoted LP fades is finished by another LP after its exclusivity', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp1: { id: string; apiKey: string };
  let lp2: { id: string; apiKey: string };
  let chains: AnvilKnobs[];
  let bot: LpBot | null = null;
  const { log, lines } = recordingBotLog();

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      exclusivitySeconds: EXCLUSIVITY,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp1 = await h.createAccount('liquidityProvider', 'fades', quotedLp.address);
    lp2 = await h.createAccount('liquidityProvider', 'second', secondLp.address);
    // The second LP's wallet: gas on the output chain and the output token to fill with.
    chains = [h.chainA, h.chainB].map((name) => anvilKnobs(h.registry.chain(name)!.rpcUrl));
    await chains[1]!.setBalance(secondLp.address, parseEther('10'));
    await transferToken(h, h.chainB, h.usdcB, quotedLp, secondLp.address, 100_000_000n);
    for (const chain of chains) await chain.blockTime(1);
  }, 120_000);
  afterAll(async () => {
    await bot?.stop();
    await h?.close();
  });

  it('refuses another filler during the exclusivity, then the second LP’s bot fills and is paid', async () => {
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, INPUT);
    const swap = await executeSwap(h, { mm, lp: lp1 }, { input: INPUT, output: OUTPUT });
    const terms = orderTermsFrom(swap.typedData);
    expect(terms.exclusivityDeadline).toBeLessThan(terms.fillDeadline);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
    const escrow = h.registry.chain(h.chainA)!.contracts.escrow;

    // Within the exclusivity the fill contract takes no one but the quoted LP.
    expect(await chainTime(h, h.chainB)).toBeLessThan(terms.exclusivityDeadline);
    await expect(
      fillOrder(h, secondLp, { chain: h.chainB, order: terms, escrow, prove: false }),
    ).rejects.toThrow(/NotFiller/);
    const open = () => h.http('GET', '/api/v1/open-orders', { apiKey: lp2.apiKey });
    expect((await open()).body.data.openOrders).toEqual([]);

    // The second LP's bot runs all along: it quotes nothing here and must not fill during the exclusivity.
    bot = createLpBot({
      api: createFerryApi({ baseUrl: h.baseUrl, apiKey: lp2.apiKey }),
      privateKey: secondKey,
      spreadBps: 25,
      log,
      journal: h.lpJournal('second'),
      proveBatch: 1,
    });
    const pass = await bot.runOnce();
    expect(pass.filled).toEqual([]);

    // The output chain passes the deadline: the worker announces the order once, and lists it for every LP.
    const before = await balanceOf(h, h.chainA, h.usdcA, secondLp.address);
    await increaseChainTime(
      h,
      h.chainB,
      Number(terms.exclusivityDeadline - (await chainTime(h, h.chainB))) + 1,
    );
    await until(
      'the open order is listed',
      async () => (await open()).body.data.openOrders.length === 1,
      30_000,
    );
    const [listed] = (await open()).body.data.openOrders;
    expect(listed.order).toMatchObject({ id: swap.orderId, status: 'deposited', filledBy: null });
    expect(listed.typedData).toEqual(swap.typedData);
    // Announced once, in the event log every stream and webhook reads.
    const announced = await h.app.database.db
      .selectFrom('events')
      .select(['data'])
      .where('type', '=', 'order.exclusivityLapsed')
      .execute();
    expect(announced.map((e) => JSON.parse(e.data).id)).toEqual([swap.orderId]);

    bot.start(300);
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
    expect(completed.details.filledBy).toBe(secondLp.address);
    expect(completed.details.filler).toBe(quotedLp.address);
    expect(completed.details.exclusivityDeadline).toBe(terms.exclusivityDeadline.toString());
    // The escrow paid the filler of record: the input less the protocol fee (0 here).
    expect((await balanceOf(h, h.chainA, h.usdcA, secondLp.address)) - before).toBe(
      INPUT - terms.protocolFee,
    );
    expect(lines.some((l) => l.msg === 'filling an open order')).toBe(true);
    expect((await open()).body.data.openOrders).toEqual([]);
  }, 180_000);
});
