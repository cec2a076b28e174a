import { createRequire } from 'node:module';
import { hexToBytes, keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadChainRegistryFile } from '../../src/chains/chain-registry.ts';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import type { Address } from '../../src/domain/address.ts';
import { createAccountService } from '../../src/services/account-service.ts';
import { createDatabase, type FerryDatabase } from '../../src/store/engine/database.ts';
import { migrateToLatest } from '../../src/store/engine/migrator.ts';
import type { QuoteRequestsTable, QuotesTable } from '../../src/store/engine/schema.ts';
import { InFlightBudget, readBalances } from './in-flight-budget.ts';
import { Batch } from './seed-batch.ts';
import { type ChainInfo, orderStatus, pick, randomAddress, SeedRows, UNFILLED } from './seed-rows.ts';

const secp256k1 = createRequire(import.meta.url)('secp256k1') as {
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
};

const DAY = 86_400_000;
const MINUTE = 60_000;

/**
 * Liquidity providers of the history beside the bench's 16: the history's unfilled orders (about 10 % of the
 * orders, at realistic amounts: some 250 million tokens at 100,000 orders) are more than 16 LPs holding 1,000,000
 * per chain and token could owe, so most are owed by these.
 */
const MARKET_LPS = 48;

/**
 * Scenario 5's requests are for 50 tokens and quoted at OPEN_REQUEST_OUTPUT, 49.9 (within MAX_QUOTE_PREMIUM_BPS):
 * small enough that the ~4,500 quotes of one LP in 5, as many in 5b and ~800 in 5c (full run), still live together,
 * and 6a's orders after them stay within the room in-flight-budget.ts leaves beside the LP's unfilled orders (about
 * 860,000 of 1,000,000 tokens at worst), so every quote is a 201.
 */
export const OPEN_REQUEST_INPUT = 50_000_000n;
export const OPEN_REQUEST_OUTPUT = 49_900_000n;

/** Whole tokens of a 6-decimal amount, for the log. */
const tokens = (units: bigint) => (units / 1_000_000n).toLocaleString('en-US');

/** The funded devnet wallet that signs every swap of the bench (anvil account 2: 1,000,000 USDC per chain). */
export const OFFERER_KEY = ANVIL_KEYS[2];
export const OFFERER = privateKeyToAccount(OFFERER_KEY).address;
/**
 * The offerer of the open requests seeded for scenarios 5 and 5b (never executed): not OFFERER, whose open requests
 * are judged together against its balance, so the 1.5 M tokens they ask for leave the live scenarios' room alone.
 */
const SEEDED_OFFERER = privateKeyToAccount(keccak256(toHex('ferry bench seeded offerer'))).address;

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

/** The chains and tokens a scenario's requests ask for. */
export interface SeedRoute {
  readonly inputChain: string;
  readonly outputChain: string;
  readonly inputToken: string;
  readonly outputToken: string;
}

function onRoute(qr: QuoteRequestsTable, route: SeedRoute): QuoteRequestsTable {
  return {
    ...qr,
    input_chain: route.inputChain,
    output_chain: route.outputChain,
    input_token: route.inputToken,
    output_token: route.outputToken,
  };
}

export class Seeder {
  readonly database: FerryDatabase;
  readonly chains: readonly ChainInfo[];
  private readonly rows: SeedRows;
  private accounts: BenchAccounts | null = null;

  private constructor(database: FerryDatabase, chains: ChainInfo[]) {
    this.database = database;
    this.chains = chains;
    this.rows = new SeedRows(chains);
  }

  /** Opens the database of the server under test (already migrated by it; migrating again is a no-op). */
  static async open(databaseUrl: string, registryFile: string): Promise<Seeder> {
    const database = createDatabase({ databaseUrl });
    await migrateToLatest(database);
    const registry = loadChainRegistryFile(registryFile);
    const chains = registry.chains.map((c) => ({
      name: c.name,
      chainId: c.chainId,
      rpcUrl: c.rpcUrl,
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
   * The rest of the market's liquidity providers, who share the history with the bench's: with random fill
   * addresses, no API key, and never quoting in the bench.
   */
  private async marketLiquidityProviders(count: number): Promise<{ id: string; address: Address }[]> {
    const service = createAccountService({ database: this.database, clock: { now: () => new Date() } });
    const lps = [];
    for (let i = 0; i < count; i++) {
      const address = randomAddress();
      const lp = await service.createAccount({
        type: 'liquidityProvider',
        name: `Market LP ${i + 1}`,
        address,
      });
      lps.push({ id: lp.id, address });
    }
    return lps;
  }

  /**
   * History: `orders` swaps (each with its accepted request and quote, statuses spread over the lifecycle, created
   * over the last 30 days) and `extraRequests` requests that never became orders (expired, cancelled, or accepted
   * and abandoned), each with 1-3 quotes. About 5 % of the orders belong to the bench money mover. The quotes and
   * orders are spread over the bench LPs and MARKET_LPS others; an unfilled order goes to a bench LP only while
   * that LP's unfilled orders on its output chain and token stay within IN_FLIGHT_SHARE_BPS of its fill balance
   * there (in-flight-budget.ts), and to one of the others otherwise.
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
    const bench = accounts.liquidityProviders;
    const market = await this.marketLiquidityProviders(MARKET_LPS);
    const lpIds = [...bench, ...market].map((lp) => lp.id);
    const marketIds = market.map((lp) => lp.id);
    const lpAddress = new Map([...bench, ...market].map((lp) => [lp.id, lp.address]));
    // Every bench LP fills from one address (createAccounts).
    const balances = await readBalances(this.chains, (bench[0] as { address: Address }).address);
    const budget = new InFlightBudget(balances, new Set(bench.map((lp) => lp.id)));
    const now = Date.now();
    const mmOrderIds: string[] = [];
    let batch = new Batch(this.database);
    let quoteCount = 0;

    for (let i = 0; i < orders; i++) {
      const mine = i % 20 === 0;
      const mm = mine ? accounts.moneyMover.id : pick(otherMms);
      const createdAt = now - 10 * MINUTE - Math.floor(Math.random() * 30 * DAY);
      const qr = this.rows.quoteRequest(mm, createdAt, 'accepted');
      const status = orderStatus();
      let quotes = this.rows.quotesOn(qr, createdAt, lpIds, lpAddress, pick(lpIds));
      const owed = quotes[0] as QuotesTable;
      const { liquidity_provider_id: lp, output_amount: amount } = owed;
      if (UNFILLED.has(status) && !budget.take(lp, qr.output_chain, qr.output_token, BigInt(amount))) {
        quotes = this.rows.quotesOn(qr, createdAt, lpIds, lpAddress, pick(marketIds));
      }
      const order = this.rows.order(qr, quotes[0] as QuotesTable, createdAt, status);
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
      const { qr, quotes } = this.rows.requestWithQuotes(pick(otherMms), createdAt, status, lpIds, lpAddress);
      batch.qrs.push(qr);
      batch.quotes.push(...quotes);
      quoteCount += quotes.length;
      if (batch.size() >= 400) {
        await batch.flush();
        batch = new Batch(this.database);
      }
    }
    await batch.flush();
    const owed = budget.summary();
    log(
      `  unfilled orders owed by the bench LPs: ${tokens(owed.total)} tokens in all, at most ${tokens(owed.largest)} by one LP on one chain and token`,
    );
    return {
      orders,
      quoteRequests: orders + extraRequests,
      quotes: quoteCount,
      seconds: (Date.now() - started) / 1000,
      moneyMoverOrderIds: mmOrderIds,
    };
  }

  /**
   * Open requests of the bench money mover on `route` that liquidity providers can quote (scenario 5), valid 2 h, of
   * OPEN_REQUEST_INPUT each.
   */
  async seedOpenRequests(count: number, route: SeedRoute): Promise<string[]> {
    const accounts = this.accounts;
    if (!accounts) throw new Error('createAccounts first');
    const ids: string[] = [];
    let batch = new Batch(this.database);
    const now = Date.now();
    for (let i = 0; i < count; i++) {
      const qr = onRoute(this.rows.quoteRequest(accounts.moneyMover.id, now, 'open', SEEDED_OFFERER), route);
      qr.expires_at = now + 2 * 60 * MINUTE;
      qr.input_amount = OPEN_REQUEST_INPUT.toString();
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
   * What each bench LP has promised before scenario 5b: `perLp` open requests of the bench offerer on `route`
   * (1 token each, open for 2 h) and an active quote of every bench LP on each, ending in 2 h: the rows the request
   * and quote services write (status, amounts within the premium bound, EIP-712 typed data; the signing hash is
   * random, as in the history, since these quotes are never executed), without their events. Their output (about
   * `perLp` tokens per LP) stays far within the LPs' fill balance, so the scenario's own quotes still succeed.
   */
  async seedLiveQuotes(perLp: number, route: SeedRoute): Promise<number> {
    const accounts = this.accounts;
    if (!accounts) throw new Error('createAccounts first');
    const lpAddress = new Map(accounts.liquidityProviders.map((lp) => [lp.id, lp.address]));
    let batch = new Batch(this.database);
    const now = Date.now();
    for (let i = 0; i < perLp; i++) {
      const qr = onRoute(this.rows.quoteRequest(accounts.moneyMover.id, now, 'open', SEEDED_OFFERER), route);
      qr.input_amount = '1000000';
      qr.expires_at = now + 2 * 60 * MINUTE;
      batch.qrs.push(qr);
      for (const lp of accounts.liquidityProviders) {
        batch.quotes.push(this.rows.quote(qr, lp.id, lpAddress, now, 'active', 2 * 60 * 60));
      }
      if (batch.size() >= 100) {
        await batch.flush();
        batch = new Batch(this.database);
      }
    }
    await batch.flush();
    return perLp * accounts.liquidityProviders.length;
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
      const qr = this.rows.quoteRequest(accounts.moneyMover.id, now, 'accepted', OFFERER);
      const quote = this.rows.quote(qr, pick(lpIds), lpAddress, now, 'accepted', validForSeconds, true);
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
}
