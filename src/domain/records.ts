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
  /** Ferry's fee from the signed terms, in input-token base units: paid to the fee recipient at settlement. */
  readonly protocolFee: bigint;
}
