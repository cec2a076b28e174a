import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type ChainClients, chainTime } from '../chains/settlement/lp-chain-clients.ts';
import { isOpenToAnyFiller } from '../domain/open-filler.ts';
import type { LpJournal } from '../store/ledgers/lp-journal.ts';
import type { ChainInfo, FerryApi, OpenOrder, OrderView } from './ferry-api.ts';
import type { BotLog } from './lp-bot-log.ts';
import { walletCover } from './lp-wallet-cover.ts';
import { quoteOutputAmount } from './pricing.ts';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export interface OpenFillDeps {
  readonly api: FerryApi;
  readonly account: PrivateKeyAccount;
  readonly journal: LpJournal;
  readonly spreadBps: number;
  /** Share of the wallet's balance of a token one offerer's quotes and orders may hold (in millionths). */
  readonly offererShareMillionths: bigint;
  readonly log: BotLog;
  chain(name: string): Promise<ChainInfo | null>;
  clientsFor(info: ChainInfo): ChainClients;
  /** Orders the bot is done with. */
  readonly settledOrders: ReadonlySet<Hex>;
  /** Open orders its pricing refused: their terms never change, so they are not read again (ids). */
  readonly overpriced: Set<string>;
  /** The filler's fillOne for an adopted open order: the journal, balance, escrow and reorg checks of any fill. */
  fillOne(order: OrderView): Promise<void>;
}

/** The journal entry an adopted open order fills under: as if the bot had quoted exactly its terms. */
export const adoptedQuoteId = (orderId: string) => `open:${orderId}`;

/**
 * Fills orders another liquidity provider was quoted for and did not fill in its exclusivity (GET
 * /api/v1/open-orders), when the bot's own pricing would have quoted at least what the order pays out, the output
 * chain is past the exclusivity (never inside another LP's), and its wallet holds the output beyond what it has
 * promised. Such an order is adopted into the journal as an accepted quote of the bot's (reserving its output until
 * the fill deadline), then goes through the filler like the bot's own orders. Per-order failures go to `failed`.
 */
export async function fillOpenOrders(
  deps: OpenFillDeps,
  failed: (subject: string, error: unknown) => void,
): Promise<void> {
  let open: OpenOrder[];
  try {
    open = await deps.api.openOrders();
  } catch (error) {
    return failed('list open orders', error);
  }
  for (const item of open) {
    const { order } = item;
    if (deps.settledOrders.has(order.blockchainOrderId as Hex) || deps.overpriced.has(order.id)) continue;
    // Its own orders come through its order list, exclusivity or not; one a wallet opened on chain naming it does
    // not (it belongs to no provider's account), so it is taken here like any open order.
    if (order.filler && same(order.filler, deps.account.address) && order.source !== 'onchain') continue;
    try {
      const quoteId = adoptedQuoteId(order.id);
      if (!(await deps.journal.findQuote(quoteId)) && !(await adopt(deps, item, quoteId))) continue;
      await deps.fillOne(orderViewOf(item, quoteId));
    } catch (error) {
      failed(order.id, error);
    }
  }
}

/** Whether the bot takes the open order on; if so, it is written in the journal as an accepted quote of its own. */
async function adopt(deps: OpenFillDeps, item: OpenOrder, quoteId: string): Promise<boolean> {
  const { order } = item;
  const [input, output] = [await deps.chain(order.inputChain), await deps.chain(order.outputChain)];
  const inToken = input?.tokens.find((t) => same(t.address, order.inputToken));
  const outToken = output?.tokens.find((t) => same(t.address, order.outputToken));
  if (!output || !inToken || !outToken || order.exclusivityDeadline === null || order.fillDeadline === null)
    return false;
  // The deadline the fill contract checks is the signed one (the filler re-checks the view against the typed data).
  if (BigInt(item.typedData.message.exclusivityDeadline ?? '0') !== BigInt(order.exclusivityDeadline))
    return false;
  const decimals = { input: inToken.decimals, output: outToken.decimals };
  const priced = quoteOutputAmount(
    BigInt(order.inputAmount) - BigInt(order.protocolFee),
    deps.spreadBps,
    decimals,
  );
  const outputAmount = BigInt(order.outputAmount);
  const skip = (why: string) => {
    deps.log.debug({ orderId: order.id }, `not filling the open order: ${why}`);
    return false;
  };
  if (outputAmount > priced) {
    deps.overpriced.add(order.id);
    return skip(`it pays out ${outputAmount}, more than this bot's pricing (${priced})`);
  }
  const out = { info: output, token: outToken };
  const [outputTime, cover] = await Promise.all([
    chainTime(deps.clientsFor(output)),
    walletCover(deps, deps.offererShareMillionths, out, order.offerer, outputAmount),
  ]);
  // FerryFill takes another filler's fill only in a block after the exclusivity: wait until the chain is past it.
  // An order naming no filler (opened on chain open to all) has no exclusivity.
  const exclusive = order.filler !== null && !isOpenToAnyFiller(order.filler);
  if (exclusive && outputTime <= BigInt(order.exclusivityDeadline))
    return skip("the quoted LP's exclusivity still holds");
  // The rules of its own quotes: what it promises stays covered, and one offerer holds at most its share.
  if (cover.short) return skip(cover.short.msg);
  await deps.journal.recordQuote({
    quoteId,
    quoteRequestId: quoteId,
    inputChain: order.inputChain,
    inputToken: order.inputToken,
    inputAmount: BigInt(order.inputAmount),
    outputChain: order.outputChain,
    outputToken: order.outputToken,
    outputAmount,
    offerer: order.offerer,
    spreadBps: deps.spreadBps,
    status: 'ordered',
    reservedUntil: Number(order.fillDeadline) * 1000,
  });
  deps.log.info({ orderId: order.id, outputAmount: order.outputAmount }, 'filling an open order');
  return true;
}

/** The open order in the shape the filler takes (an order view with its quote's typed data). */
function orderViewOf({ order, typedData }: OpenOrder, quoteId: string): OrderView {
  const view = {
    orderId: order.id,
    quoteId,
    quoteRequestId: quoteId,
    blockchainOrderId: order.blockchainOrderId,
    status: order.status,
    details: { ...order, blockchainOrderId: order.blockchainOrderId },
    quote: { typedData },
  };
  return view as unknown as OrderView;
}
