import { getAddress, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  allowanceOf,
  approveData,
  balanceOf,
  type ChainClients,
  chainTime,
  escrowSettler,
  escrowStatus,
  fillAndProveData,
  fillData,
  fillOf,
  quoteProve,
} from '../chains/settlement/lp-chain-clients.ts';
import { proveOptions } from '../chains/settlement/prove-options.ts';
import type { TransactionClient } from '../chains/transactions/transaction-client.ts';
import type { TxAction } from '../chains/transactions/tx-ledger.ts';
import type { TxOutcome } from '../chains/transactions/tx-sender.ts';
import type { JournalQuote, JournalTables, LpJournal } from '../store/ledgers/lp-journal.ts';
import type { LedgerGuard } from '../store/ledgers/tx-ledger-store.ts';
import type { ChainInfo, OrderView } from './ferry-api.ts';
import type { BotLog } from './lp-bot-log.ts';
import { LpBotError } from './lp-error.ts';
import { fillRefusal } from './lp-fill-refusal.ts';
import type { PassReport } from './lp-pass-report.ts';
import { type SignedOrder, settlementMethodOf, signedOrderOf } from './lp-signed-order.ts';

export type BotTransactions = TransactionClient<LedgerGuard<JournalTables>>;

export interface FillerDeps {
  readonly account: PrivateKeyAccount;
  readonly journal: LpJournal;
  readonly transactions: BotTransactions;
  readonly log: BotLog;
  /** Seconds before fillDeadline after which the bot no longer fills. */
  readonly fillMargin: bigint;
  /** Fills per proof message (lp-prover.ts); 1: each fill proves itself (fillAndProve). */
  readonly proveBatch: number;
  chain(name: string): Promise<ChainInfo | null>;
  clientsFor(info: ChainInfo): ChainClients;
}

const hex = (value: string) => value as Hex;
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Why an order is not filled now: a log line, and whether its quote has ended (null: look again next pass). */
interface Blocker {
  final: boolean | null;
  level: 'info' | 'warn' | 'error';
  msg: string;
  extra?: object;
}

function deadlineOf(order: OrderView): bigint {
  if (order.details.fillDeadline === null)
    throw new LpBotError(`order ${order.orderId} is listed without its fillDeadline`);
  return BigInt(order.details.fillDeadline);
}

/**
 * Approves the fill contract for what the bot has promised on the token (its open quotes and orders, this one
 * among them) when the allowance falls short of this fill; true once it covers. Never more: the spender is the
 * API's, checked against the chains (and the chains file when given), and an approval is still money at risk.
 */
async function allowanceCovers(
  deps: FillerDeps,
  info: ChainInfo,
  c: ChainClients,
  token: Hex,
  amount: bigint,
): Promise<boolean> {
  const { account, journal, transactions, log } = deps;
  const spender = hex(info.fill);
  if ((await allowanceOf(c, token, account.address, spender)) >= amount) return true;
  const subject = `${info.name}:${token}:${spender}`.toLowerCase();
  const previous = await journal.latestAction(subject, 'approve');
  if (previous?.status === 'recorded') return false;
  const promised = await journal.reserved(info.name, token, Date.now());
  const sent = await transactions.submit({
    subject,
    kind: 'approve',
    seq: previous ? previous.seq + 1 : 0,
    call: { chain: info.name, to: token, data: approveData(spender, promised > amount ? promised : amount) },
    account,
    guard: (trx) => journal.hasAction(trx, subject, 'approve', ['recorded']).then((open) => !open),
  });
  log.info({ chain: info.name, token, spender, txHash: sent?.outcome.txHash }, 'approving the fill contract');
  return sent?.outcome.status === 'success';
}

/** Whether the fill is proven later in a batch (lp-prover.ts) instead of in its own transaction. */
const batched = (deps: FillerDeps, signed: SignedOrder) =>
  signed.settlement === 'layerzero' && deps.proveBatch > 1;

/**
 * The fill's call: the plain fill on an attester chain (Ferry's attester proves it) and on a LayerZero chain while
 * the bot proves in batches (the recipient is paid now; the proof, and so the LP's repayment, follows with the
 * batch). With batches of one, FerryApp's fillAndProve: the fill and the message proving it to the input chain in
 * one transaction, `value` the messaging fee quoted just now.
 */
async function fillCall(deps: FillerDeps, c: ChainClients, info: ChainInfo, signed: SignedOrder) {
  const { order, escrow, settlement } = signed;
  const to = hex(info.fill);
  if (settlement === 'attester' || batched(deps, signed))
    return { to, data: fillData(order, escrow), value: 0n };
  const options = proveOptions(1);
  const value = await quoteProve(c, to, [order], escrow, options);
  const native = await c.public.getBalance({ address: deps.account.address });
  // A clear message instead of the node's "insufficient funds" on the gas estimate.
  if (native < value)
    throw new LpBotError(`fill wallet holds ${native} wei on ${info.name}, the proof's fee is ${value}`, {
      retryable: true,
    });
  return { to, data: fillAndProveData(order, escrow, options), value };
}

/** Submits the order's fill (the next try after `previous`), guarded against a second fill of one order. */
async function sendFill(
  deps: FillerDeps,
  c: ChainClients,
  info: ChainInfo,
  signed: SignedOrder,
  previous: TxAction | null,
  of: { orderId: string; inputChain: string; quoteId: string },
): Promise<TxOutcome | null> {
  const { account, journal, transactions } = deps;
  const orderHash = signed.orderHash;
  const { to, data, value } = await fillCall(deps, c, info, signed);
  const sent = await transactions.submit({
    subject: orderHash,
    kind: 'fill',
    seq: previous ? previous.seq + 1 : 0,
    call: { chain: info.name, to, data },
    // Fee bumps re-sign the same call with the same value: the fee quoted here (any excess is refunded).
    ...(value > 0n ? { value } : {}),
    account,
    // Never a second fill of one order: not while one is in flight, not after one took effect. A fill proven in a
    // batch is written down to prove in the same write, before it is broadcast.
    guard: async (trx) => {
      if (await journal.hasAction(trx, orderHash, 'fill', ['recorded', 'confirmed'])) return false;
      // What it pays stays held back from the balance until a block holds it (lp-fill-outputs.ts).
      await journal.fillOutputs.record(trx, {
        orderHash,
        chain: info.name,
        token: signed.order.outputToken,
        amount: signed.order.outputAmount,
        ...of,
      });
      if (batched(deps, signed)) {
        await journal.proofs.recordFill(trx, {
          orderHash,
          orderId: of.orderId,
          outputChain: info.name,
          inputChain: of.inputChain,
          escrow: signed.escrow,
          order: signed.order,
        });
      }
      return true;
    },
  });
  return sent?.outcome ?? null;
}

/** Each escrow's settler (keyed by chain and escrow): immutable, so read once per escrow. */
type Settlers = Map<string, Promise<Hex>>;

function settlerOf(deps: FillerDeps, settlers: Settlers, inputInfo: ChainInfo, escrow: Hex): Promise<Hex> {
  const key = `${inputInfo.name}:${escrow}`.toLowerCase();
  let settler = settlers.get(key);
  if (!settler) {
    settler = escrowSettler(deps.clientsFor(inputInfo), escrow);
    settlers.set(key, settler);
    settler.catch(() => settlers.delete(key));
  }
  return settler;
}

/**
 * Why the order must not be filled now, read from both chains just before the fill (one round of RPC calls), or
 * null; `final` says whether the quote has ended (null: look again next pass). Sets the order's `settlement`.
 */
async function fillBlocker(
  deps: FillerDeps,
  settlers: Settlers,
  info: ChainInfo,
  inputInfo: ChainInfo,
  signed: SignedOrder,
): Promise<Blocker | null> {
  const c = deps.clientsFor(info);
  const fillDeadline = signed.order.fillDeadline;
  const [outputTime, fill, escrow, settler] = await Promise.all([
    chainTime(c),
    fillOf(c, hex(info.fill), signed.orderHash),
    escrowStatus(deps.clientsFor(inputInfo), signed.escrow, signed.orderHash),
    settlerOf(deps, settlers, inputInfo, signed.escrow),
  ]);
  const method = settlementMethodOf(settler, inputInfo);
  if (!method) {
    return {
      final: true,
      level: 'error',
      msg: `not filling: the input chain's escrow is settled by ${settler}, neither ${inputInfo.name}'s Ferry app nor its attester messenger`,
    };
  }
  signed.settlement = method;
  // The fill contract checks the output chain's block time; an idle chain's latest block can be old, so the
  // local clock is the floor.
  const now = BigInt(Math.floor(Date.now() / 1000));
  if ((outputTime > now ? outputTime : now) + deps.fillMargin > fillDeadline) {
    return {
      final: true,
      level: 'warn',
      msg: `not filling: within ${deps.fillMargin} s of the fill deadline (the order will be refunded)`,
      extra: { fillDeadline: fillDeadline.toString(), chainTime: outputTime.toString() },
    };
  }
  if (fill) {
    // After the exclusivity another filler may have been first: the order is theirs, paid to them.
    const ours = same(fill.filler, deps.account.address);
    const msg = ours ? 'already filled by this wallet' : `not filling: ${fill.filler} filled it first`;
    return { final: !ours, level: 'info', msg, extra: { fillTime: `${fill.time}` } };
  }
  // Only an order the escrow holds `Active` can pay the fill back; anything else would be a gift.
  if (escrow === 'active') return null;
  const msg = `not filling: the escrow holds the order as ${escrow}, not active`;
  // `none` may be a deposit not yet visible to this RPC. Settled or refunded is final.
  return { final: escrow === 'none' ? null : true, level: 'warn', msg, extra: { escrow } };
}

/** Logs why the bot is done with an order, or (`final` false) only for now: a filled one is watched until settled. */
export type Done = (msg: string, level: 'info' | 'warn' | 'error', extra?: object, final?: boolean) => void;

/**
 * A fill counted at depth is watched until the input chain's escrow settles the order: a reorg deeper than the
 * confirmations may still take it off the output chain. Then, while the fill deadline leaves room, its action is
 * opened again and the transaction pass broadcasts the same signed bytes (or, when the nonce went elsewhere, the
 * next pass sends a fresh fill).
 */
async function watchConfirmed(
  deps: FillerDeps,
  target: { info: ChainInfo; inputInfo: ChainInfo; signed: SignedOrder; quote: JournalQuote },
  fill: TxAction,
  seen: { report: PassReport; orderId: string; done: Done },
): Promise<void> {
  const { info, inputInfo, signed } = target;
  const { quoteId } = target.quote;
  const { done } = seen;
  const c = deps.clientsFor(info);
  const [onChain, escrow, outputTime] = await Promise.all([
    fillOf(c, hex(info.fill), signed.orderHash),
    escrowStatus(deps.clientsFor(inputInfo), signed.escrow, signed.orderHash),
    chainTime(c),
  ]);
  const extra = { txHash: fill.txHash, escrow };
  if (escrow === 'settled' || escrow === 'refunded') {
    await deps.journal.setQuoteStatus(quoteId, 'ended');
    return done(`fill confirmed; the escrow holds the order as ${escrow}`, 'info', extra);
  }
  const fillTime = onChain && same(onChain.filler, deps.account.address) ? onChain.time : 0n;
  if (onChain && fillTime === 0n) {
    // A reorg took this wallet's fill off the chain and another filler's (the order was open) took its place.
    await deps.journal.setQuoteStatus(quoteId, 'ended');
    return done(
      `the confirmed fill left the canonical chain; ${onChain.filler} filled the order`,
      'warn',
      extra,
    );
  }
  if (fillTime !== 0n) {
    if (target.quote.status !== 'filled') {
      // Sent without waiting for its block (or before a restart), first seen at depth: logged `filled` all the same.
      await deps.journal.setQuoteStatus(quoteId, 'filled');
      seen.report.filled.push({ orderId: seen.orderId, orderHash: signed.orderHash, txHash: fill.txHash });
      return done('filled', 'info', extra, false);
    }
    return done('fill confirmed; waiting for settlement', 'info', extra, false);
  }
  const now = BigInt(Math.floor(Date.now() / 1000));
  if ((outputTime > now ? outputTime : now) + deps.fillMargin > signed.order.fillDeadline) {
    await deps.journal.setQuoteStatus(quoteId, 'ended');
    return done(
      'the confirmed fill left the canonical chain (reorg) too close to the fill deadline to send it again',
      'error',
      extra,
    );
  }
  if (await deps.journal.reopenAction(fill.id, Date.now())) {
    await deps.journal.setQuoteStatus(quoteId, 'ordered', Number(signed.order.fillDeadline) * 1000);
  }
  done('the confirmed fill left the canonical chain (reorg); sending it again', 'warn', extra, false);
}

/** The order's fill, from the journal check to a fill mined at depth, one pass at a time. */
export function createFiller(deps: FillerDeps) {
  const { account, journal, log } = deps;
  /** Each escrow's settler: immutable, so read once per escrow. */
  const settlers: Settlers = new Map();

  return {
    /** `open`: an order open to any filler (its exclusivity lapsed) that the bot adopted (lp-open-fills.ts). */
    async fillOne(order: OrderView, report: PassReport, done: Done, open = false) {
      const orderHash = hex(order.blockchainOrderId);
      const [info, inputInfo] = [
        await deps.chain(order.details.outputChain),
        await deps.chain(order.details.inputChain),
      ];
      if (!info || !inputInfo) return done('not filling: unknown chain', 'error');
      const inToken = inputInfo.tokens.find((t) => same(t.address, order.details.inputToken));
      const outToken = info.tokens.find((t) => same(t.address, order.details.outputToken));
      if (!inToken || !outToken) return done('not filling: unknown token', 'error');
      if (!open && (!order.details.filler || getAddress(order.details.filler) !== account.address)) {
        return done('not filling: the order names another fill address than this private key', 'error', {
          filler: order.details.filler,
          wallet: account.address,
        });
      }
      const quote = await journal.findQuote(order.quoteId);
      const refusal = fillRefusal(order, quote, { input: inToken.decimals, output: outToken.decimals });
      if (refusal || !quote) return done(`not filling: ${refusal}`, 'error', { quoteId: order.quoteId });
      const signed = signedOrderOf(order, inputInfo, info);
      if (typeof signed === 'string') return done(`not filling: ${signed}`, 'error');
      const fillDeadline = deadlineOf(order);
      if (quote.status === 'active')
        await journal.setQuoteStatus(quote.quoteId, 'ordered', Number(fillDeadline) * 1000);

      const previous = await journal.latestAction(orderHash, 'fill');
      if (previous?.status === 'recorded') return; // in flight: the transaction pass drives it
      if (previous?.status === 'confirmed') {
        const seen = { report, orderId: order.orderId, done };
        return watchConfirmed(deps, { info, inputInfo, signed, quote }, previous, seen);
      }
      if (previous)
        log.warn(
          { orderId: order.orderId, txHash: previous.txHash },
          'fill did not take effect; checking again',
        );

      const c = deps.clientsFor(info);
      const outputAmount = BigInt(order.details.outputAmount);
      const blocked = await fillBlocker(deps, settlers, info, inputInfo, signed);
      if (blocked) {
        if (blocked.final) await journal.setQuoteStatus(quote.quoteId, 'ended');
        // Not final (a deposit not yet visible to this RPC): look again next pass.
        if (blocked.final === null) return log.warn({ orderId: order.orderId, orderHash }, blocked.msg);
        return done(blocked.msg, blocked.level, blocked.extra);
      }
      const token = hex(order.details.outputToken);
      // Fills are sent without waiting for their blocks: those still in flight are paid from this balance too.
      const [held, inFlight] = await Promise.all([
        balanceOf(c, token, account.address),
        journal.fillOutputs.inFlight(info.name, token),
      ]);
      if (held - inFlight < outputAmount) {
        throw new LpBotError(
          `fill wallet holds ${held} of ${token} (${inFlight} owed to fills in flight), needs ${outputAmount}`,
          { retryable: true },
        );
      }
      if (!(await allowanceCovers(deps, info, c, token, outputAmount + inFlight))) return;
      log.info(
        {
          orderId: order.orderId,
          orderHash,
          chain: info.name,
          outputAmount: order.details.outputAmount,
          proof: signed.settlement,
        },
        'filling',
      );
      const of = { orderId: order.orderId, inputChain: inputInfo.name, quoteId: quote.quoteId };
      const outcome = await sendFill(deps, c, info, signed, previous, of);
      if (!outcome) return;
      if (outcome.status === 'success') {
        await journal.setQuoteStatus(quote.quoteId, 'filled');
        report.filled.push({ orderId: order.orderId, orderHash, txHash: outcome.txHash });
        // Watched on: a reorg may still take it off the chain until the escrow settles it.
        return done('filled', 'info', { txHash: outcome.txHash }, false);
      }
      log.info(
        { orderId: order.orderId, orderHash, txHash: outcome.txHash, status: outcome.status },
        'fill sent',
      );
    },
  };
}
