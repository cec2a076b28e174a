/**
 * The bench seed's rows: quote requests, quotes and orders shaped like real traffic (routes, amounts, statuses
 * spread over the lifecycle), built in memory for seeder.ts to insert.
 */
import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import { ulid } from 'ulid';
import { getAddress, toHex } from 'viem';
import type { Address } from '../../src/domain/address.ts';
import {
  buildOrderTypedData,
  hashOrderTypedData,
  type OrderTypedData,
} from '../../src/domain/order-typed-data.ts';
import type { OrdersTable, QuoteRequestsTable, QuotesTable } from '../../src/store/engine/schema.ts';

export type OrderRow = Insertable<OrdersTable>;

export interface ChainInfo {
  readonly name: string;
  readonly chainId: number;
  readonly rpcUrl: string;
  readonly escrow: Address;
  readonly tokens: readonly Address[];
}

/** Builds rows over `chains`, with offerers and recipients drawn from a pool of random wallets. */
export class SeedRows {
  private readonly wallets: Address[];

  constructor(private readonly chains: readonly ChainInfo[]) {
    this.wallets = Array.from({ length: 2000 }, () => randomAddress());
  }

  private route() {
    const input = pick(this.chains);
    const output = pick(this.chains.filter((c) => c.name !== input.name));
    return { input, output };
  }

  quoteRequest(accountId: string, createdAt: number, status: string, offerer?: Address): QuoteRequestsTable {
    const { input, output } = this.route();
    const from = offerer ?? pick(this.wallets);
    return {
      id: `qr_${ulid(createdAt).toLowerCase()}`,
      account_id: accountId,
      offerer: from,
      // Most people swap to themselves; some pay another wallet.
      recipient: Math.random() < 0.8 ? from : pick(this.wallets),
      input_token: pick(input.tokens),
      output_token: pick(output.tokens),
      input_amount: realisticAmount().toString(),
      input_chain: input.name,
      output_chain: output.name,
      status,
      accepted_quote_id: null,
      created_at: createdAt,
      updated_at: createdAt + 2000 + Math.floor(Math.random() * 20_000),
      expires_at: createdAt + 120_000,
    };
  }

  quote(
    qr: QuoteRequestsTable,
    lpId: string,
    lpAddress: Map<string, Address>,
    at: number,
    status: string,
    validFor = 60,
    realHash = false,
  ): QuotesTable {
    const input = this.chains.find((c) => c.name === qr.input_chain) as ChainInfo;
    const output = this.chains.find((c) => c.name === qr.output_chain) as ChainInfo;
    const inputAmount = BigInt(qr.input_amount);
    // An LP keeps 2-30 basis points.
    const outputAmount = (inputAmount * BigInt(9970 + Math.floor(Math.random() * 28))) / 10_000n;
    const startTime = Math.floor(at / 1000);
    const endTime = startTime + validFor;
    const openDeadline = endTime + 600;
    const typedData: OrderTypedData = buildOrderTypedData(
      {
        offerer: qr.offerer as Address,
        recipient: qr.recipient as Address,
        inputToken: qr.input_token as Address,
        outputToken: qr.output_token as Address,
        inputAmount,
        outputAmount,
        inputChainId: BigInt(input.chainId),
        outputChainId: BigInt(output.chainId),
        filler: lpAddress.get(lpId) as Address,
        nonce: BigInt(`0x${randomBytes(16).toString('hex')}`),
        openDeadline: BigInt(openDeadline),
        fillDeadline: BigInt(openDeadline + 1800),
        protocolFee: 0n,
        exclusivityDeadline: BigInt(endTime + 60),
      },
      input.escrow,
    );
    return {
      id: `q_${ulid(at).toLowerCase()}`,
      quote_request_id: qr.id,
      liquidity_provider_id: lpId,
      order_id: `ord_${ulid(at).toLowerCase()}`,
      output_amount: outputAmount.toString(),
      start_time: startTime,
      end_time: endTime,
      // History is never re-hashed by the server: a random 32-byte hash has the same shape and keeps the
      // 100k-row seed fast. Quotes that will be executed get the real EIP-712 hash.
      signing_hash: realHash ? hashOrderTypedData(typedData) : toHex(randomBytes(32)),
      typed_data: JSON.stringify(typedData),
      status,
      created_at: at,
      updated_at: at,
    };
  }

  requestWithQuotes(
    mm: string,
    createdAt: number,
    status: string,
    lpIds: readonly string[],
    lpAddress: Map<string, Address>,
  ) {
    const qr = this.quoteRequest(mm, createdAt, status);
    return { qr, quotes: this.quotesOn(qr, createdAt, lpIds, lpAddress) };
  }

  /**
   * 1-3 quotes of LPs drawn from `lpIds` on `qr`, in the statuses its own status implies: the first (`winner`,
   * when given) accepted on an accepted request, the others declined.
   */
  quotesOn(
    qr: QuoteRequestsTable,
    createdAt: number,
    lpIds: readonly string[],
    lpAddress: Map<string, Address>,
    winner?: string,
  ): QuotesTable[] {
    const status = qr.status;
    const n = 1 + Math.floor(Math.random() * 3);
    const lps = shuffle([...lpIds]).slice(0, n);
    if (winner && !lps.includes(winner)) lps[0] = winner;
    if (winner) lps.sort((a, b) => (a === winner ? -1 : b === winner ? 1 : 0));
    const quotes = lps.map((lp, i) => {
      const quoteStatus =
        status === 'accepted'
          ? i === 0
            ? 'accepted'
            : 'declined'
          : status === 'cancelled'
            ? 'withdrawn'
            : 'expired';
      return this.quote(qr, lp, lpAddress, createdAt + 300 + i * 150, quoteStatus);
    });
    if (status === 'accepted') qr.accepted_quote_id = (quotes[0] as QuotesTable).id;
    return quotes;
  }

  order(
    qr: QuoteRequestsTable,
    quote: QuotesTable,
    requestedAt: number,
    status: string,
  ): OrderRow & { id: string } {
    const createdAt = requestedAt + 5000 + Math.floor(Math.random() * 30_000);
    const hash = () => toHex(randomBytes(32));
    const reached = (s: string) => {
      const order = ['created', 'deposited', 'filled', 'completed'];
      return status === s || (order.indexOf(status) >= order.indexOf(s) && order.indexOf(status) >= 0);
    };
    const deposited = reached('deposited') || status === 'refunded';
    const filled = reached('filled');
    const terminal = ['completed', 'failed', 'refunded'].includes(status);
    const updatedAt = createdAt + (terminal ? 60_000 + Math.floor(Math.random() * 600_000) : 20_000);
    return {
      id: quote.order_id,
      quote_id: quote.id,
      quote_request_id: qr.id,
      blockchain_order_id: quote.signing_hash,
      signature: toHex(randomBytes(65)),
      status,
      money_mover_account_id: qr.account_id,
      liquidity_provider_account_id: quote.liquidity_provider_id,
      offerer: qr.offerer,
      recipient: qr.recipient,
      input_token: qr.input_token,
      output_token: qr.output_token,
      input_amount: qr.input_amount,
      output_amount: quote.output_amount,
      input_chain: qr.input_chain,
      output_chain: qr.output_chain,
      src_chain_tx_hash: deposited ? hash() : null,
      dst_chain_tx_hash: filled ? hash() : null,
      settlement_tx_hash: status === 'completed' || status === 'refunded' ? hash() : null,
      failure_reason:
        status === 'failed'
          ? pick([
              'insufficient allowance for the escrow',
              'offerer balance too low at deposit',
              'deposit reverted',
            ])
          : status === 'refunded'
            ? 'not filled before the fill deadline'
            : null,
      metadata: '{}',
      created_by: qr.account_id,
      updated_by: qr.account_id,
      created_at: createdAt,
      updated_at: updatedAt,
      completed_at: status === 'completed' ? updatedAt : null,
      lease_owner: null,
      lease_expires_at: null,
      next_attempt_at: 0,
      attempts: terminal ? 1 + Math.floor(Math.random() * 3) : 0,
    };
  }
}

/** Statuses in which an order's output is still owed by its LP: what Ferry's coverage check counts. */
export const UNFILLED = new Set(['created', 'deposited']);

/** An order's status: most history is settled; a tail is still moving, and some failed or were refunded. */
export function orderStatus(): string {
  const roll = Math.random();
  return roll < 0.7
    ? 'completed'
    : roll < 0.8
      ? 'failed'
      : roll < 0.86
        ? 'refunded'
        : roll < 0.9
          ? 'filled'
          : roll < 0.95
            ? 'deposited'
            : 'created';
}

export function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)] as T;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

export function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

/** Amounts in 6-decimal base units, log-spread from 10 to 250,000 tokens, rounded like people type them. */
function realisticAmount(): bigint {
  const tokens = 10 ** (1 + Math.random() * 4.4);
  const rounded = tokens > 1000 ? Math.round(tokens / 100) * 100 : Math.round(tokens);
  return BigInt(Math.max(10, rounded)) * 1_000_000n;
}
