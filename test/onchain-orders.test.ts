import { zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { hashOrderTypedData } from '../src/domain/order-typed-data.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot, type LpBot } from '../src/lp/lp-bot.ts';
import { recordingBotLog } from './support/bot-log.ts';
import { approveEscrow, balanceOf, minedIn, onchainOrderTerms, openOnChain } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { until } from './support/polling.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const INPUT = 2_000_000n;
const OUTPUT = 1_990_000n;

/**
 * A wallet opens its own order on the escrow with ERC-7683 `open`, no API involved. Ferry's worker reads the
 * escrow's `Open` event at the chain's confirmations depth and follows the order like its own: it appears in the
 * public API and the event log (`source: "onchain"`, already deposited, open to any filler), liquidity providers
 * find it in GET /api/v1/open-orders, and the reference bot fills it at its own pricing until it completes, the
 * filler of record paid on the input chain. An order made through the API is not indexed a second time.
 */
describe('orders wallets open on chain', () => {
  let h: Harness;
  let lp: { id: string; apiKey: string };
  let bot: LpBot | null = null;
  const { log, lines } = recordingBotLog();

  beforeAll(async () => {
    h = await startHarness({ worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } });
    lp = await h.createAccount('liquidityProvider', 'maker', lpWallet.address);
  }, 120_000);
  afterAll(async () => {
    await bot?.stop();
    await h?.close();
  });

  const publicSearch = async (q: string) =>
    (await h.http('GET', `/api/public/orders?q=${q}`)).body.data.orders as any[];

  it('appears in the API and event log, is listed open, and completes through the reference bot', async () => {
    const order = await onchainOrderTerms(h, INPUT, OUTPUT);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, INPUT);
    const txHash = await openOnChain(h, h.offerer, order);

    const escrow = h.registry.chain(h.chainA)!.contracts.escrow;
    const open = () => h.http('GET', '/api/v1/open-orders', { apiKey: lp.apiKey });
    const [listed] = await until('the worker follows the order opened on chain', async () => {
      const found = (await open()).body.data.openOrders as any[];
      return found.length > 0 && found;
    });
    const orderHash = hashOrderTypedData(listed.typedData);
    expect(listed.typedData.domain.verifyingContract).toBe(escrow);
    expect(listed.order).toMatchObject({
      source: 'onchain',
      status: 'deposited',
      blockchainOrderId: orderHash,
      offerer: h.offerer.address,
      filler: zeroAddress,
      srcChainTxHash: txHash,
      inputAmount: INPUT.toString(),
      outputAmount: OUTPUT.toString(),
      filledBy: null,
    });
    expect((await publicSearch(orderHash)).map((o) => [o.id, o.source])).toEqual([
      [listed.order.id, 'onchain'],
    ]);
    // Told on the stream as any order is: created, and open to any filler from the start.
    const events = await h.app.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('type', 'in', ['order.created', 'order.exclusivityLapsed'])
      .execute();
    expect(events.filter((e) => JSON.parse(e.data).id === listed.order.id).map((e) => e.type)).toEqual([
      'order.created',
      'order.exclusivityLapsed',
    ]);

    const before = await balanceOf(h, h.chainA, h.usdcA, lpWallet.address);
    const paidOut = await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address);
    bot = createLpBot({
      api: createFerryApi({ baseUrl: h.baseUrl, apiKey: lp.apiKey }),
      privateKey: ANVIL_KEYS[4],
      spreadBps: 25,
      log,
      journal: h.lpJournal('maker'),
      proveBatch: 1,
    });
    bot.start(300);
    const completed = await until(
      'the order opened on chain completes',
      async () => {
        const [o] = await publicSearch(orderHash);
        return o?.status === 'completed' && o;
      },
      90_000,
    );
    await bot.stop();
    expect(completed).toMatchObject({ source: 'onchain', filledBy: lpWallet.address });
    expect(lines.some((l) => l.msg === 'filling an open order')).toBe(true);
    expect((await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address)) - paidOut).toBe(OUTPUT);
    expect((await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)) - before).toBe(
      INPUT - order.protocolFee,
    );
    expect((await open()).body.data.openOrders).toEqual([]);
  }, 180_000);

  it('an order made through the API is not indexed a second time from its deposit’s Open event', async () => {
    const mm = await h.createAccount('moneyMover');
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, INPUT);
    const swap = await executeSwap(h, { mm, lp }, { input: INPUT, output: OUTPUT });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
    // The worker's scan of the input chain passes the deposit's block, and so its Open event.
    const { src_chain_tx_hash: depositTx } = await h.app.database.db
      .selectFrom('orders')
      .select('src_chain_tx_hash')
      .where('id', '=', swap.orderId)
      .executeTakeFirstOrThrow();
    const depositBlock = await minedIn(h, h.chainA, depositTx as `0x${string}`);
    expect(depositBlock).not.toBeNull();
    await until('the scan passes the deposit', async () => {
      const cursor = await h.app.database.db
        .selectFrom('log_cursors')
        .select('next_block')
        .where('chain', '=', h.chainA)
        .where('scope', 'like', 'fill:%')
        .executeTakeFirst();
      return cursor !== undefined && BigInt(cursor.next_block) > (depositBlock as bigint);
    });
    const rows = await h.app.database.db
      .selectFrom('orders')
      .select(['id', 'source'])
      .where('blockchain_order_id', '=', swap.orderHash)
      .execute();
    expect(rows).toEqual([{ id: swap.orderId, source: 'order' }]);
    expect((await publicSearch(swap.orderHash)).map((o) => o.source)).toEqual(['order']);
  }, 120_000);
});
