import type { Address } from './address.ts';

/**
 * What the settlement decision returns. settlement-decision.ts delegates to proof-decision.ts and relayer-reverts.ts,
 * which return it too, so it sits below all three.
 */

type Hex = `0x${string}`;

export type FollowedStatus = 'deposited' | 'filled' | 'completed' | 'refunded';

export type RelayerActionKind =
  | 'deposit'
  | 'settle'
  | 'refund'
  | 'prove'
  | 'commit'
  | 'execute'
  | 'commit-gap';

/** `retryOf`: the last action of the kind reverted and the reason to send it still holds: send a new one. */
type Retry = { readonly retryOf?: Hex };

export type SettlementDecision =
  /** Send Ferry's deposit, or follow the one already written down to its receipt. */
  | ({ readonly kind: 'deposit' } & Retry)
  /** Sign the fill attestation and relay it (or follow the relay written down to its receipt). */
  | ({ readonly kind: 'attest-and-settle' } & Retry)
  /**
   * LayerZero: prove the fill (FerryApp.prove on the output chain), or follow Ferry's prove to its receipt.
   * `afterSkip`: the delivery in which the escrow skipped the previous proof; a new message is sent.
   */
  | ({ readonly kind: 'prove'; readonly afterSkip?: Hex } & Retry)
  /** LayerZero: commit the verified proof message on the input chain (ReceiveUln302.commitVerification). */
  | ({ readonly kind: 'commit' } & Retry)
  /**
   * LayerZero: commit an older verified message on the route (sent in `txHash`), which the endpoint needs committed
   * before it executes the order's proof message (ReceiveUln302.commitVerification, permissionless).
   */
  | { readonly kind: 'commit-gap'; readonly guid: Hex; readonly txHash: Hex }
  /** LayerZero: execute the committed proof message on the input chain (EndpointV2.lzReceive). */
  | ({ readonly kind: 'execute' } & Retry)
  /** Send Ferry's refund, or follow the one written down to its receipt. */
  | ({ readonly kind: 'refund' } & Retry)
  /** Move the order to the status the chains show. */
  | {
      readonly kind: 'follow';
      readonly to: FollowedStatus;
      readonly srcChainTxHash?: Hex;
      readonly dstChainTxHash?: Hex;
      readonly filledBy?: Address;
      readonly settlementTxHash?: Hex;
      readonly failureReason?: string;
    }
  | { readonly kind: 'fail'; readonly reason: string }
  /** The deposited order's exclusivity lapsed unfilled: tell the liquidity providers any of them may fill it. */
  | { readonly kind: 'announce-open' }
  /**
   * The relayer's action of `action` reverted on chain MAX_REVERTED_SENDS times: it is not sent again; the reason is
   * written on the order while it waits for the chains (anyone's settlement or refund).
   */
  | { readonly kind: 'give-up'; readonly action: RelayerActionKind; readonly reason: string }
  /** Nothing to do now; `reason` says what the order waits for. */
  | { readonly kind: 'wait'; readonly reason: string }
  /** A terminal order: the worker has nothing left to do. */
  | { readonly kind: 'done' };

export type SettlementDecisionKind = SettlementDecision['kind'];
