import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Insertable } from 'kysely';
import { ulid } from 'ulid';
import { getAddress, hexToBytes, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadChainRegistryFile } from '../../src/chains/chain-registry.ts';
import { ANVIL_KEYS } from '../../src/chains/devnet.ts';
import type { Address } from '../../src/domain/address.ts';
import {
  buildOrderTypedData,
  hashOrderTypedData,
  type OrderTypedData,
} from '../../src/domain/order-typed-data.ts';
import { createAccountService } from '../../src/services/account-service.ts';
import { createDatabase, type FerryDatabase } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrator.ts';
import type { OrdersTable, QuoteRequestsTable, QuotesTable } from '../../src/store/schema.ts';

type OrderRow = Insertable<OrdersTable>;

const secp256k1 = createRequire(import.meta.url)('secp256k1') as {
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
};

const DAY = 86_400_000;
const MINUTE = 60_000;

/** The funded devnet wallet that signs every swap of the bench (anvil account 2: 1,000,000 USDC per chain). */
export const OFFERER_KEY = ANVIL_KEYS[2];
export const OFFERER = privateKeyToAccount(OFFERER_KEY).address;

export interface ChainInfo {
  readonly name: string;
  readonly chainId: number;
  readonly escrow: Address;
  readonly tokens: readonly Address[];
}

export interface BenchAccounts {
  readonly moneyMover: { id: string; apiKey: string };
  readonly liquidityProviders: readonly { id: string; apiKey: string; address: Address }[];
}

export interface SeedSummary {
  readonly orders: number;
  readonly quoteRequests: number;
  readonly quotes: number;
  readonly seconds: number;
  /** Orders of the bench money mover, for GET /api/v1/orders/{id}. */
  readonly moneyMoverOrderIds: readonly string[];
}

/** EIP-712 signature with low s, as a wallet would send it: r ‖ s ‖ v (27/28). */
export function signDigest(digest: `0x${string}`, privateKey: `0x${string}` = OFFERER_KEY): `0x${string}` {
  const { signature, recid } = secp256k1.ecdsaSign(hexToBytes(digest), hexToBytes(privateKey));
  const out = new Uint8Array(65);
  out.set(signature, 0);
  out[65 - 1] = 27 + recid;
  return toHex(out);
}

export class Seeder {
  readonly database: FerryDatabase;
  readonly chains: readonly ChainInfo[];
  private readonly wallets: Address[];
  private accounts: BenchAccounts | null = null;

  private constructor(database: FerryDatabase, chains: ChainInfo[]) {
    this.database = database;
    this.chains = chains;
    this.wallets = Array.from({ length: 2000 }, () => randomAddress());
  }

  /** Opens the database of the server under test (already migrated by it; migrating again is a no-op). */
  static async open(databaseUrl: string, registryFile: string): Promise<Seeder> {
    const database = createDatabase({ databaseUrl });
    await migrateToLatest(database);
    const registry = loadChainRegistryFile(registryFile);
    const chains = registry.chains.map((c) => ({
      name: c.name,
      chainId: c.chainId,
      escrow: c.contracts.escrow,
      tokens: c.tokens.map((t) => t.address),
    }));
    return new Seeder(database, chains);
  }

  close = () => this.database.destroy();

  /** One money mover and `lpCount` liquidity providers, each with an API key (through the account service). */
  async createAccounts(lpCount: number): Promise<BenchAccounts> {
    const service = createAccountService({ database: this.database, clock: { now: () => new Date() } });
    const mm = await service.createAccount({ type: 'moneyMover', name: 'Bench integrator', address: null });
    const lps = [];
    for (let i = 0; i < lpCount; i++) {
      // Ferry refuses a quote its fill address cannot cover: every bench LP fills from the same funded devnet
      // wallet (anvil account 4, 1,000,000 USDC per chain).
      const address = privateKeyToAccount(ANVIL_KEYS[4]).address;
      const lp = await service.createAccount({
        type: 'liquidityProvider',
        name: `Bench LP ${i + 1}`,
        address,
      });
      lps.push({ id: lp.id, apiKey: (await service.createApiKey(lp.id)).apiKey, address });
    }
    this.accounts = {
      moneyMover: { id: mm.id, apiKey: (await service.createApiKey(mm.id)).apiKey },
      liquidityProviders: lps,
    };
    return this.accounts;
  }

  /** `count` more liquidity providers (random fill addresses), each with an API key; only their keys are kept. */
  async extraLiquidityProviders(count: number): Promise<string[]> {
    const service = createAccountService({ database: this.database, clock: { now: () => new Date() } });
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const lp = await service.createAccount({
        type: 'liquidityProvider',
        name: `Bench streaming LP ${i + 1}`,
        address: randomAddress(),
      });
      keys.push((await service.createApiKey(lp.id)).apiKey);
    }
    return keys;
  }

  /**
   * History: `orders` swaps (each with its accepted request and quote, statuses spread over the lifecycle, created
   * over the last 30 days) and `extraRequests` requests that never became orders (expired, cancelled, or accepted
   * and abandoned), each with 1-3 quotes. About 5 % of the orders belong to the bench money mover.
   */
  async seedHistory(
    orders: number,
    extraRequests: number,
    log: (line: string) => void,
  ): Promise<SeedSummary> {
    const accounts = this.accounts;
    if (!accounts) throw new Error('createAccounts first');
    const started = Date.now();
    const service = createAccountService({ database: this.database, clock: { now: () => new Date() } });
    const otherMms: string[] = [];
    for (let i = 0; i < 19; i++) {
      otherMms.push(
        (await service.createAccount({ type: 'moneyMover', name: `Integrator ${i + 1}`, address: null })).id,
      );
    }
    const lpIds = accounts.liquidityProviders.map((lp) => lp.id);
    const lpAddress = new Map(accounts.liquidityProviders.map((lp) => [lp.id, lp.address]));
    const now = Date.now();
    const mmOrderIds: string[] = [];
    let batch = new Batch(this.database);
    let quoteCount = 0;

    for (let i = 0; i < orders; i++) {
      const mine = i % 20 === 0;
      const mm = mine ? accounts.moneyMover.id : pick(otherMms);
      const createdAt = now - 10 * MINUTE - Math.floor(Math.random() * 30 * DAY);
      const lp = pick(lpIds);
      const { qr, quotes } = this.requestWithQuotes(mm, createdAt, 'accepted', lpIds, lpAddress, lp);
      const accepted = quotes[0] as QuotesTable;
      const order = this.order(qr, accepted, createdAt);
      if (mine) mmOrderIds.push(order.id);
      batch.qrs.push(qr);
      batch.quotes.push(...quotes);
      batch.orders.push(order);
      quoteCount += quotes.length;
      if (batch.size() >= 400) {
        await batch.flush();
        batch = new Batch(this.database);
      }
      if ((i + 1) % 20_000 === 0) log(`  seeded ${i + 1} orders`);
    }
    for (let i = 0; i < extraRequests; i++) {
      const createdAt = now - 10 * MINUTE - Math.floor(Math.random() * 30 * DAY);
      const roll = Math.random();
      const status = roll < 0.7 ? 'expired' : roll < 0.8 ? 'cancelled' : 'accepted';
      const { qr, quotes } = this.requestWithQuotes(pick(otherMms), createdAt, status, lpIds, lpAddress);
      batch.qrs.push(qr);
      batch.quotes.push(...quotes);
      quoteCount += quotes.length;
      if (batch.size() >= 400) {
        await batch.flush();
        batch = new Batch(this.database);
      }
    }
    await batch.flush();
    return {
      orders,
      quoteRequests: orders + extraRequests,
      quotes: quoteCount,
      seconds: (Date.now() - started) / 1000,
      moneyMoverOrderIds: mmOrderIds,
    };
  }

  /** Open requests of the bench money mover that liquidity providers can quote (scenario 5), valid for 2 h. */
  async seedOpenRequests(count: number): Promise<string[]> {
    const accounts = this.accounts;
    if (!accounts) throw new Error('createAccounts first');
    const ids: string[] = [];
    let batch = new Batch(this.database);
    const now = Date.now();
    for (let i = 0; i < count; i++) {
      const qr = this.quoteRequest(accounts.moneyMover.id, now, 'open', OFFERER);
      qr.expires_at = now + 2 * 60 * MINUTE;
      // Scenario 5 quotes 249.5 tokens on each: within MAX_QUOTE_PREMIUM_BPS of 250, so every quote is a 201.
      qr.input_amount = '250000000';
      ids.push(qr.id);
      batch.qrs.push(qr);
      if (batch.size() >= 400) {
        await batch.flush();
        batch = new Batch(this.database);
      }
    }
    await batch.flush();
    return ids;
  }

  /**
   * Accepted quotes ready to execute (scenario 6b): the request of the bench money mover, the quote accepted,
   * valid for `validForSeconds`, and the offerer's EIP-712 signature made here in the driver, as a wallet would.
   */
  async prepareSwaps(count: number, validForSeconds: number) {
    const accounts = this.accounts;
    if (!accounts) throw new Error('createAccounts first');
    const lpIds = accounts.liquidityProviders.map((lp) => lp.id);
    const lpAddress = new Map(accounts.liquidityProviders.map((lp) => [lp.id, lp.address]));
    const swaps: { orderId: string; quoteId: string; signature: `0x${string}` }[] = [];
    let batch = new Batch(this.database);
    const now = Date.now();
    for (let i = 0; i < count; i++) {
      const qr = this.quoteRequest(accounts.moneyMover.id, now, 'accepted', OFFERER);
      const quote = this.quote(qr, pick(lpIds), lpAddress, now, 'accepted', validForSeconds, true);
      qr.accepted_quote_id = quote.id;
      swaps.push({
        orderId: quote.order_id,
        quoteId: quote.id,
        signature: signDigest(quote.signing_hash as `0x${string}`),
      });
      batch.qrs.push(qr);
      batch.quotes.push(quote);
      if (batch.size() >= 400) {
        await batch.flush();
        batch = new Batch(this.database);
      }
    }
    await batch.flush();
    return swaps;
  }

  private route() {
    const input = pick(this.chains);
    const output = pick(this.chains.filter((c) => c.name !== input.name));
    return { input, output };
  }

  private quoteRequest(
    accountId: string,
    createdAt: number,
    status: string,
    offerer?: Address,
  ): QuoteRequestsTable {
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

  private quote(
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

  private requestWithQuotes(
    mm: string,
    createdAt: number,
    status: string,
    lpIds: readonly string[],
    lpAddress: Map<string, Address>,
    winner?: string,
  ) {
    const qr = this.quoteRequest(mm, createdAt, status);
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
    return { qr, quotes };
  }

  private order(qr: QuoteRequestsTable, quote: QuotesTable, requestedAt: number): OrderRow & { id: string } {
    const createdAt = requestedAt + 5000 + Math.floor(Math.random() * 30_000);
    const roll = Math.random();
    // Most history is settled; a tail is still moving, and some failed or were refunded.
    const status =
      roll < 0.7
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

/** Rows inserted together, parents first, in one transaction. */
class Batch {
  qrs: QuoteRequestsTable[] = [];
  quotes: QuotesTable[] = [];
  orders: OrderRow[] = [];
  constructor(private readonly database: FerryDatabase) {}
  size = () => this.qrs.length;
  async flush() {
    if (this.qrs.length === 0) return;
    await this.database.db.transaction().execute(async (trx) => {
      // Chunks keep each statement under SQLite's and PostgreSQL's bound-parameter limits.
      for (const rows of chunks(this.qrs, 500)) await trx.insertInto('quote_requests').values(rows).execute();
      for (const rows of chunks(this.quotes, 500)) await trx.insertInto('quotes').values(rows).execute();
      for (const rows of chunks(this.orders, 500)) await trx.insertInto('orders').values(rows).execute();
    });
  }
}

function chunks<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)] as T;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

/** Amounts in 6-decimal base units, log-spread from 10 to 250,000 tokens, rounded like people type them. */
function realisticAmount(): bigint {
  const tokens = 10 ** (1 + Math.random() * 4.4);
  const rounded = tokens > 1000 ? Math.round(tokens / 100) * 100 : Math.round(tokens);
  return BigInt(Math.max(10, rounded)) * 1_000_000n;
}
