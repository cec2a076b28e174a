import type { Address } from './address.ts';
import type { EscrowStatus } from './escrow-status.ts';
import type { OrderStatus } from './lifecycle.ts';
import type { OrderTerms } from './order-typed-data.ts';

/**
 * What the worker observed of one order, the settlement decision's input. The decision (settlement-decision.ts)
 * delegates to proof-decision.ts and relayer-reverts.ts, which read it too, so it sits below all three.
 */

type Hex = `0x${string}`;

/** The terms of the signed order the decision needs. */
export type SettlementTerms = Pick<
  OrderTerms,
  | 'recipient'
  | 'outputToken'
  | 'outputAmount'
  | 'filler'
  | 'openDeadline'
  | 'fillDeadline'
  | 'exclusivityDeadline'
>;

/** The order's `Filled` event on the output chain, as seen (the filler of record: whoever filled). */
export interface ObservedFill {
  readonly txHash: Hex;
  readonly filler: Address;
  readonly recipient: Address;
  readonly token: Address;
  readonly amount: bigint;
  /** Timestamp of the block holding the fill. */
  readonly blockTimestamp: bigint;
  /** Blocks from the fill's block to the output chain's head, both counted (1 = in the latest block). */
  readonly depth: number;
}

/** One chain action Ferry wrote down for this order (at most one per kind). */
export interface RecordedAction {
  /** `reverted` also stands for an action spent without effect otherwise (cancelled, its nonce taken). */
  readonly status: 'recorded' | 'confirmed' | 'reverted';
  readonly txHash: Hex;
  /** How many of the order's actions of this kind reverted on chain (this one included); 0 when absent. */
  readonly reverted?: number;
}

/**
 * Everything observed for one order in one pass. Input-chain facts are read at one block that is already
 * `confirmations` deep (so a fact the decision acts on cannot be reorged away); `inputTime` is that block's
 * timestamp. `outputTime` is the timestamp of the output chain's block at its own confirmations depth, or of the
 * last block the fill index has read if that is older (0 for a `created` order, which does not need the output
 * chain): the absence of a fill only counts where fills were looked for.
 */
export interface SettlementObservation {
  readonly status: OrderStatus;
  readonly terms: SettlementTerms;
  readonly escrow: EscrowStatus;
  readonly inputTime: bigint;
  readonly outputTime: bigint;
  readonly settleGrace: bigint;
  /** The output chain's confirmations: a fill counts at this depth. */
  readonly outputConfirmations: number;
  readonly actions: {
    readonly deposit: RecordedAction | null;
    /** Attester route: the attestation's relay. */
    readonly settle: RecordedAction | null;
    readonly refund: RecordedAction | null;
    /** LayerZero route: Ferry's own prove, commit and execute of the proof message (fallbacks). */
    readonly prove?: RecordedAction | null;
    readonly commit?: RecordedAction | null;
    readonly execute?: RecordedAction | null;
    /** LayerZero route: Ferry's newest commit of an older message on the route that blocked the proof's delivery. */
    readonly commitGap?: RecordedAction | null;
  };
  /** How the fill is proven to the escrow (the input chain's settlement method) and, for LayerZero, what was seen. */
  readonly route: SettlementRoute;
  /**
   * The escrow's record at the input chain's latest block, read only for a `created` order whose escrow is empty at
   * the confirmed block: a deposit in a block not yet at depth (the offerer's own, say) is followed, never failed.
   */
  readonly escrowAtLatest: EscrowStatus | null;
  /** The order's fill, if one was seen (valid or not; the decision judges it). */
  readonly fill: ObservedFill | null;
  /** Whether the lapse of the order's exclusivity was announced already (`order.exclusivityLapsed`). */
  readonly exclusivityLapsed?: boolean;
  /**
   * Read only for a `created` order with nothing deposited and no deposit of Ferry's in flight (none written down,
   * or the last one reverted): the offerer's balance and allowance, and the reason a deposit would revert now
   * (null: it would not, or it was not simulated because the funds fall short).
   */
  readonly depositCheck: {
    readonly balance: bigint;
    readonly allowance: bigint;
    readonly inputAmount: bigint;
    readonly revert: string | null;
  } | null;
}

/**
 * Where a LayerZero proof message stands on the input chain: `pending` (the DVNs have not all verified it),
 * `verified` (they have: anyone may commit it), `committed` (the endpoint holds it: anyone may execute it),
 * `delivered` (executed).
 */
export type ProofState = 'pending' | 'verified' | 'committed' | 'delivered';

/** The newest proof message FerryApp sent for the order (ProofSent at the output chain's confirmations depth). */
export interface ProofObservation {
  readonly guid: Hex;
  /** The transaction that sent it (the filler's fillAndProve or anyone's prove). */
  readonly txHash: Hex;
  /** ProofSent's block timestamp (output-chain time). */
  readonly sentAt: bigint;
  readonly state: ProofState;
  /** ProofDelivered on the input chain, when the index has seen it. */
  readonly delivered: { readonly txHash: Hex; readonly at: bigint } | null;
  /**
   * The lowest older message on the same path (output FerryApp to input FerryApp) the endpoint still needs
   * committed before it executes this one: it delivers a path's nonces in order. Read only while this message is
   * verified or committed and the escrow is active; null when nothing below it is missing.
   */
  readonly gap?: ProofGap | null;
  /**
   * Why the escrow skipped this order when the message was delivered (FerryEscrow's SettleSkipped in the delivery),
   * read only when it was delivered and the escrow is still active; null when it did not skip it.
   */
  readonly skipped?: SkipReason | null;
}

/** FerryEscrow.SkipReason: why a delivered proof did not settle an order. */
export type SkipReason = 'NotActive' | 'WrongTerms' | 'LateFill' | 'WrongFiller';

/**
 * An older message on the path that is not committed yet: `verified` (anyone may commit it), `pending` (its DVNs
 * have not all verified it), or `unknown` (no ProofSent of it in the index, so its packet cannot be read).
 */
export interface ProofGap {
  readonly nonce: bigint;
  readonly state: 'pending' | 'verified' | 'unknown';
  /** The message and the transaction that sent it (null when `unknown`). */
  readonly guid: Hex | null;
  readonly txHash: Hex | null;
}

/** How the order's fill reaches its escrow: the input chain's settlement method, and for LayerZero what was seen. */
export type SettlementRoute =
  | { readonly method: 'attester' }
  | {
      readonly method: 'layerzero';
      readonly proof: ProofObservation | null;
      /** The output chain's proveAfterSeconds. */
      readonly proveAfter: bigint;
      /** The input chain's executeAfterSeconds. */
      readonly executeAfter: bigint;
      /** The worker's clock (unix seconds): an idle devnet's chain time stands still. */
      readonly now: bigint;
      /** How many proves of the order Ferry wrote down (each retry or prove again is one more). */
      readonly proves?: number;
    };
