import type { Address } from './address.ts';
import type { OrderStatus, QuoteRequestStatus, QuoteStatus } from './lifecycle.ts';
import type { OrderTypedData } from './order-typed-data.ts';
import type { AccountType } from './principal.ts';

/** The stored entities, as the rest of the code sees them (bigint amounts, Date times, checksummed addresses). */

export interface Account {
  readonly id: string;
  readonly type: AccountType;
  readonly name: string;
  /** Liquidity provider: its fill address. Money mover: the wallet of a SIWE account, else null. */
  readonly address: Address | null;
  /**
   * Whether Sign-In with Ethereum by `address` acts as this account: true for accounts a sign-in created, and for
   * operator accounts opted in with `--allow-wallet-sign-in`. Otherwise a sign-in by that wallet gets its own account.
   */
  readonly walletSignIn: boolean;
  readonly createdAt: Date;
}

export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly keyPrefix: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  readonly lastUsedAt: Date | null;
}

export interface QuoteRequestTerms {
  readonly offerer: Address;
  readonly recipient: Address;
  readonly inputToken: Address;
  readonly outputToken: Address;
  readonly inputAmount: bigint;
  readonly inputChain: string;
  readonly outputChain: string;
}

export interface QuoteRequest extends QuoteRequestTerms {
  readonly id: string;
  readonly accountId: string;
  readonly status: QuoteRequestStatus;
  readonly acceptedQuoteId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly expiresAt: Date;
}

export interface Quote {
  readonly id: string;
  readonly quoteRequestId: string;
  readonly liquidityProviderId: string;
  readonly orderId: string;
  readonly outputAmount: bigint;
  readonly startTime: number;
  readonly endTime: number;
  readonly signingHash: `0x${string}`;
  readonly typedData: OrderTypedData;
  readonly status: QuoteStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface Order {
  readonly id: string;
  readonly quoteId: string;
  readonly quoteRequestId: string;
  readonly blockchainOrderId: `0x${string}`;
  readonly signature: `0x${string}`;
  readonly status: OrderStatus;
  readonly moneyMoverAccountId: string;
  readonly liquidityProviderAccountId: string;
  readonly offerer: Address;
  readonly recipient: Address;
  readonly inputToken: Address;
  readonly outputToken: Address;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly inputChain: string;
  readonly outputChain: string;
  readonly srcChainTxHash: string | null;
  readonly dstChainTxHash: string | null;
  readonly settlementTxHash: string | null;
  readonly failureReason: string | null;
  readonly metadata: Record<string, unknown>;
  readonly createdBy: string;
  readonly updatedBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly completedAt: Date | null;
  /**
   * The signed terms' filler (the liquidity provider's fill address) and deadlines (unix seconds: openDeadline in
   * input-chain time, fillDeadline in output-chain time). Null only for rows written outside the API.
   */
  readonly filler: Address | null;
  readonly openDeadline: bigint | null;
  readonly fillDeadline: bigint | null;
  /**
   * Unix seconds (output-chain time): until then only `filler` may fill; after it anyone may. Null only for rows
   * written before open filling.
   */
  readonly exclusivityDeadline: bigint | null;
  /** Who filled the order on the output chain (the filler of record, whom the escrow pays); null until filled. */
  readonly filledBy: Address | null;
  /** When the worker saw the deposited order's exclusivity lapse unfilled (and told the LPs); null before. */
  readonly exclusivityLapsedAt: Date | null;
  /** The message proving the order's fill to its escrow; null before any. */
  readonly settlement: OrderSettlement | null;
  /** Attester chains: the attestation Ferry signed for the fill, handed to the filler (who may relay it itself). */
  readonly fillAttestation: FillAttestation | null;
  /** Ferry's fee from the signed terms, in input-token base units: accrues to the fee recipient at settlement. */
  readonly protocolFee: bigint;
  /** How the order came to be: `order` through the API's swap, `onchain` opened by a wallet on an escrow. */
  readonly source: OrderSource;
}

export type OrderSource = 'order' | 'onchain';

export type SettlementMethod = 'layerzero' | 'attester';
export type SettlementMessageStatus = 'sent' | 'verified' | 'delivered';

/**
 * The proof of an order's fill on its way to the escrow. LayerZero: `messageId` is the message's guid, `sent`
 * when FerryApp's ProofSent is final on the output chain, `verified` once the DVNs verified it on the input chain,
 * `delivered` once executed (the escrow settled). Attester: `messageId` is the attestation's EIP-712 digest,
 * `verified` once signed, `sent` once relayed, `delivered` once the escrow settled.
 */
export interface OrderSettlement {
  readonly method: SettlementMethod;
  readonly messageId: `0x${string}` | null;
  readonly status: SettlementMessageStatus;
  /** The transaction that sent the message (fillAndProve or prove; the attester's relayFill). */
  readonly txHash: `0x${string}` | null;
  readonly sentAt: Date | null;
  readonly deliveredAt: Date | null;
}

/** AttesterMessenger.relayFill(escrow, order, filler, fillTime, signature) settles the order with this. */
export interface FillAttestation {
  readonly messenger: Address;
  readonly escrow: Address;
  /** The filler of record, whom the signature binds and the escrow pays. */
  readonly filler: Address;
  /** The fill's block timestamp (unix seconds), which the signature binds. */
  readonly fillTime: bigint;
  readonly signature: `0x${string}`;
}
