import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import {
  RevertError,
  type SettledBlock,
  type SettlementChain,
} from '../chains/settlement/settlement-chain.ts';
import type { TxAction } from '../chains/transactions/tx-ledger.ts';
import type { Clock } from '../domain/clock.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import type { Order } from '../domain/records.ts';
import type { RecordedAction, SettlementObservation } from '../domain/settlement-observation.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import type { ChainActionExecutor } from './chain-action-executor.ts';
import type { FillIndexer } from './fill-indexer.ts';
import { orderDepositCall } from './order-deposit-call.ts';
import { observeRoute } from './proof-route-observer.ts';

/** Reads what the settlement decision needs for one order. */
export interface OrderObserver {
  observe(order: Order, terms: OrderTerms): Promise<SettlementObservation>;
}

function recordedAction(action: TxAction | null, reverted: number | undefined): RecordedAction | null {
  if (!action) return null;
  const counted = reverted ? { reverted } : {};
  switch (action.status) {
    case 'recorded':
    case 'confirmed':
    case 'reverted':
      return { status: action.status, txHash: action.txHash, ...counted };
    // Its nonce went to another transaction, or was spent on a cancel: like a revert, spent without effect, so the
    // decision follows the escrow (a deposit, settle or refund by anyone) and may send a new one.
    case 'nonce-conflict':
    case 'cancelled':
      return { status: 'reverted', txHash: action.txHash, ...counted };
  }
}

/**
 * Both chains at their confirmations depth (and the input chain's latest block where a `created` order could
 * otherwise fail), and the chain actions Ferry wrote down for the order.
 */
export function createOrderObserver(deps: {
  readonly registry: ChainRegistry;
  readonly chain: SettlementChain;
  readonly actions: ChainActionExecutor;
  /** The deposit is simulated from this address. */
  readonly relayer: PrivateKeyAccount;
  readonly fillIndexer?: FillIndexer;
  /** Where the fill index keeps proof messages and a swap's EIP-2612 permit is kept. */
  readonly database: FerryDatabase;
  readonly clock: Clock;
}): OrderObserver {
  const { chain, actions, relayer } = deps;

  /**
   * The output chain's time as far as the fill index has read it. A refund rests on "no fill by fillDeadline", and
   * the index is where fills are seen: while it lags (an RPC outage, a long scan), time past its last block proves
   * nothing, so it must not count.
   */
  async function indexedTime(chainName: string, settled: SettledBlock): Promise<bigint> {
    if (!deps.fillIndexer) return settled.timestamp;
    const through = await deps.fillIndexer.indexedThrough(chainName);
    if (through === null) return 0n;
    if (through >= settled.number) return settled.timestamp;
    return chain.blockTimestamp(chainName, through);
  }

  /** Reads what the decision needs for one order: both chains at their confirmations depth, and the records. */
  async function observe(order: Order, terms: OrderTerms): Promise<SettlementObservation> {
    const hash = order.blockchainOrderId;
    const open = order.status === 'deposited' || order.status === 'filled';
    // A `created` order needs nothing from the output chain yet.
    const [input, output, settleGrace, deposit, settle, refund, prove, commit, execute, commitGap, reverted] =
      await Promise.all([
        chain.settledBlock(order.inputChain),
        open ? chain.settledBlock(order.outputChain) : { head: 0n, number: 0n, timestamp: 0n },
        chain.settleGrace(order.inputChain),
        actions.recorded(order.id, 'deposit'),
        actions.recorded(order.id, 'settle'),
        actions.recorded(order.id, 'refund'),
        actions.recorded(order.id, 'prove'),
        actions.recorded(order.id, 'commit'),
        actions.recorded(order.id, 'execute'),
        actions.recorded(order.id, 'commit-gap'),
        actions.reverted(order.id),
      ]);
    const [escrow, fill] = await Promise.all([
      chain.escrowStatus(order.inputChain, hash, input.number),
      open ? chain.findFill(order.outputChain, hash) : null,
    ]);
    // Before anything can fail a `created` order: a deposit not yet at depth (the offerer's own) is followed.
    const escrowAtLatest =
      order.status === 'created' && escrow === 'none'
        ? await chain.escrowStatus(order.inputChain, hash)
        : null;
    const base = {
      status: order.status,
      terms,
      escrow,
      inputTime: input.timestamp,
      outputTime: open ? await indexedTime(order.outputChain, output) : 0n,
      exclusivityLapsed: order.exclusivityLapsedAt !== null,
      settleGrace,
      outputConfirmations: deps.registry.chain(order.outputChain)?.confirmations ?? 1,
      actions: {
        deposit: recordedAction(deposit, reverted.deposit),
        settle: recordedAction(settle, reverted.settle),
        refund: recordedAction(refund, reverted.refund),
        prove: recordedAction(prove, reverted.prove),
        commit: recordedAction(commit, reverted.commit),
        execute: recordedAction(execute, reverted.execute),
        commitGap: recordedAction(commitGap, reverted['commit-gap']),
      },
      route: open
        ? await observeRoute(deps, order, escrow, prove ? prove.seq + 1 : 0)
        : { method: 'attester' },
      fill: fill && {
        ...fill,
        blockTimestamp: BigInt(fill.blockTimestamp),
        depth: Number(output.head - fill.blockNumber + 1n),
      },
      escrowAtLatest,
      depositCheck: null,
    } satisfies SettlementObservation;
    const inFlight = base.actions.deposit && base.actions.deposit.status !== 'reverted';
    if (order.status !== 'created' || escrow !== 'none' || escrowAtLatest !== 'none' || inFlight) return base;
    return { ...base, depositCheck: await checkDeposit(order, terms, input.timestamp) };
  }

  /** The offerer's funds, and, when they suffice, whether the deposit would revert for another reason. */
  async function checkDeposit(order: Order, terms: OrderTerms, inputTime: bigint) {
    const { balance, allowance } = await chain.balanceAndAllowance(
      order.inputChain,
      order.inputToken,
      order.offerer,
    );
    const deposit = await orderDepositCall(deps.database, chain, order, terms);
    // A permit grants the escrow inputAmount within the deposit itself: the allowance is not the offerer's to give
    // (a permit that no longer works shows in the simulation below).
    const allowed = deposit.withPermit && allowance < order.inputAmount ? order.inputAmount : allowance;
    const check = {
      balance,
      allowance: allowed,
      inputAmount: order.inputAmount,
      revert: null as string | null,
    };
    if (balance < order.inputAmount || allowed < order.inputAmount || inputTime > terms.openDeadline) {
      return check;
    }
    try {
      await chain.simulate(deposit.call, relayer.address);
    } catch (error) {
      if (!(error instanceof RevertError)) throw error;
      check.revert = error.reason;
    }
    return check;
  }

  return { observe };
}
