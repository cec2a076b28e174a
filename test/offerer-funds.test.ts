import { pino } from 'pino';
import { createPublicClient, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPermit, signQuote } from '../sdk/src/index.ts';
import { createApp, type FerryAppInstance } from '../src/app.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { transferToken } from './support/chain-actors.ts';
import {
  acceptQuote,
  createQuote,
  createQuoteRequest,
  expectError,
  quoteRequestBody,
} from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const USDC = 1_000_000n;

/**
 * What the API refuses before it writes anything about an offerer's funds and routes:
 * - a route without a settlement path (chain A settles through the attester here, chain B through LayerZero: an
 *   order from B filled on A could never be proven to B's escrow);
 * - quote requests whose sum in one token exceeds the offerer's balance, also when sent at once, from several
 *   accounts and (PostgreSQL) to two Ferry instances;
 * - a permit deadline beyond uint256, and a second permit swap over a nonce an undeposited permit swap carries.
 * Real server, real devnets with Circle's USDC (FiatTokenV2_2, which takes permits); SQLite, or PostgreSQL with
 * FERRY_TEST_PG.
 */
describe('offerer funds and settlement paths', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let mm2: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  /** A second instance on the same database (PostgreSQL only: two SQLite writers in one process block each other). */
  let second: { app: FerryAppInstance; url: string } | null = null;

  beforeAll(async () => {
    h = await startHarness(
      { rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      {
        registry: (file) => ({
          chains: file.chains.map((chain, i) => (i === 0 ? { ...chain, messenger: 'attester' } : chain)),
        }),
      },
    );
    mm = await h.createAccount('moneyMover', 'mm');
    mm2 = await h.createAccount('moneyMover', 'mm2');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    if (h.config.databaseUrl.startsWith('postgres')) {
      const app = await createApp({
        config: { ...h.config, port: 0 },
        registry: h.registry,
        clock: h.clock,
        log: pino({ level: 'silent' }),
      });
      second = { app, url: await app.listen() };
    }
  });
  afterAll(async () => {
    await second?.app.close();
    await h?.close();
  });

  const chainA = () => h.registry.chain(h.chainA)!;
  const publicA = () => createPublicClient({ transport: http(chainA().rpcUrl) });
  const usdcB = () => h.registry.chain(h.chainB)!.tokens.find((t) => t.symbol === 'USDC')!.address;

  async function walletWith(amount: bigint) {
    const wallet = privateKeyToAccount(generatePrivateKey());
    await transferToken(h, h.chainA, h.usdcA, h.offerer, wallet.address, amount);
    return wallet;
  }

  const request = (apiKey: string, offerer: Hex, amount: bigint, baseUrl?: string) =>
    h.http('POST', '/api/v1/quote-requests', {
      apiKey,
      body: quoteRequestBody(h, { offerer, inputAmount: amount.toString() }),
      ...(baseUrl ? { baseUrl } : {}),
    });

  /** The rows a refused request must not write (the expiry sweep writes quoteRequest.expired events meanwhile). */
  async function rowCounts() {
    const db = h.app.database.db;
    const count = async (table: 'swap_permits' | 'orders' | 'quote_requests') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((e) => e.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const created = await db
      .selectFrom('events')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('type', 'in', ['order.created', 'quoteRequest.created'])
      .executeTakeFirstOrThrow();
    return {
      created: Number(created.n),
      permits: await count('swap_permits'),
      orders: await count('orders'),
      requests: await count('quote_requests'),
    };
  }

  describe('settlement paths', () => {
    it('refuses a request from a LayerZero chain to an attester chain: 400 INVALID_CHAIN at body.outputChain', async () => {
      const before = await rowCounts();
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, {
          inputChain: h.chainB,
          outputChain: h.chainA,
          inputToken: usdcB(),
          outputToken: h.usdcA,
        }),
      });
      expectError(res, 400, 'INVALID_CHAIN', 'body.outputChain');
      expect(res.body.error).toContain(
        `no settlement path from ${h.chainB} (layerzero) to ${h.chainA} (attester)`,
      );
      expect(await rowCounts()).toEqual(before);
    });

    it('takes the other direction (an attester escrow settles fills on any chain)', async () => {
      const res = await request(mm.apiKey, h.offerer.address, USDC);
      expect(res.status).toBe(201);
    });

    it("shows each chain's messenger and the output chains it settles in /api/public/chains", async () => {
      const res = await h.http('GET', '/api/public/chains');
      const byName = Object.fromEntries(
        res.body.data.chains.map((c: { name: string; messenger: string; outputChains: string[] }) => [
          c.name,
          { messenger: c.messenger, outputChains: c.outputChains },
        ]),
      );
      expect(byName).toEqual({
        [h.chainA]: { messenger: 'attester', outputChains: [h.chainB] },
        [h.chainB]: { messenger: 'layerzero', outputChains: [] },
      });
    });
  });

  describe("an offerer's open requests together", () => {
    it('refuses the request that would take the open ones past the balance, at body.inputAmount', async () => {
      const wallet = await walletWith(10n * USDC);
      expect((await request(mm.apiKey, wallet.address, 6n * USDC)).status).toBe(201);
      // Another account naming the same offerer is judged on the same balance.
      const res = await request(mm2.apiKey, wallet.address, 5n * USDC);
      expectError(res, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
      expect(res.body.error).toContain('open quote requests already ask for 6000000');
      expect((await request(mm2.apiKey, wallet.address, 4n * USDC)).status).toBe(201);
      // Another offerer is not held back by this one.
      expect((await request(mm2.apiKey, h.offerer.address, 10n * USDC)).status).toBe(201);
    });

    it('counts only open requests: an expired one no longer holds the balance', async () => {
      const wallet = await walletWith(10n * USDC);
      expect((await request(mm.apiKey, wallet.address, 10n * USDC)).status).toBe(201);
      expectError(
        await request(mm.apiKey, wallet.address, USDC),
        422,
        'INSUFFICIENT_BALANCE',
        'body.inputAmount',
      );
      h.clock.advance(h.config.quoteRequestTtlSeconds + 1);
      expect((await request(mm.apiKey, wallet.address, 10n * USDC)).status).toBe(201);
    });

    it('lets exactly the requests the balance covers through when they arrive at once', async () => {
      const wallet = await walletWith(10n * USDC);
      const urls = [h.baseUrl, second?.url ?? h.baseUrl];
      // Requests of one offerer that arrive while one is being written are judged and written together
      // (quote-request-writer.ts); across instances only the database's lock keeps them apart.
      const responses = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          request(i % 2 === 0 ? mm.apiKey : mm2.apiKey, wallet.address, 3n * USDC, urls[i % 2]),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([...Array(3).fill(201), ...Array(13).fill(422)]);
      for (const r of responses.filter((r) => r.status === 422))
        expectError(r, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
    });
  });

  describe('permits', () => {
    const swap = (body: Record<string, unknown>) =>
      h.http('POST', '/api/v1/swaps', { apiKey: mm.apiKey, body });

    async function acceptedQuote(offerer: Hex, amount: bigint) {
      const requestId = await createQuoteRequest(h, mm.apiKey, { offerer, inputAmount: amount.toString() });
      const quote = await createQuote(h, lp.apiKey, requestId, (amount - 10_000n).toString());
      await acceptQuote(h, mm.apiKey, quote.quoteId);
      return quote;
    }

    async function signedSwap(
      wallet: ReturnType<typeof privateKeyToAccount>,
      amount: bigint,
      deadline?: bigint,
    ) {
      const quote = await acceptedQuote(wallet.address, amount);
      const permit = await signPermit(wallet, quote.typedData, {
        permit: chainA().tokens.find((t) => t.symbol === 'USDC')!.permit!,
        publicClient: publicA(),
        ...(deadline === undefined ? {} : { deadline }),
      });
      return {
        orderId: quote.orderId,
        quoteId: quote.quoteId,
        signature: await signQuote(wallet, quote.typedData),
        permit,
      };
    }

    it('refuses a deadline beyond uint256 at body.permit.deadline, writing nothing', async () => {
      const wallet = await walletWith(2n * USDC);
      const body = await signedSwap(wallet, USDC);
      const before = await rowCounts();
      const res = await swap({ ...body, permit: { ...body.permit, deadline: (2n ** 256n).toString() } });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.permit.deadline');
      expect(await rowCounts()).toEqual(before);
    });

    it('refuses a second permit swap over the nonce of one not yet deposited, writing nothing', async () => {
      const wallet = await walletWith(4n * USDC);
      const first = await signedSwap(wallet, USDC);
      const second = await signedSwap(wallet, USDC);
      expect((await swap(first)).status).toBe(201);
      const before = await rowCounts();
      const res = await swap(second);
      expectError(res, 409, 'CONFLICT', 'body.permit');
      expect(res.body.error).toContain(first.orderId);
      expect(await rowCounts()).toEqual(before);
      // The same swap again is still the same order.
      expect((await swap(first)).status).toBe(200);
      // Without a permit the second swap goes through (the offerer approves instead).
      const { permit: _, ...withoutPermit } = second;
      expect((await swap(withoutPermit)).status).toBe(201);
    });

    it('lets one of two permit swaps over the same nonce through when they arrive at once', async () => {
      const wallet = await walletWith(4n * USDC);
      const bodies = [await signedSwap(wallet, USDC), await signedSwap(wallet, USDC)];
      const urls = [h.baseUrl, second?.url ?? h.baseUrl];
      const responses = await Promise.all(
        bodies.map((body, i) =>
          h.http('POST', '/api/v1/swaps', { apiKey: mm.apiKey, body, baseUrl: urls[i] }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409]);
      const permits = await h.app.database.db
        .selectFrom('swap_permits')
        .innerJoin('orders', 'orders.id', 'swap_permits.order_id')
        .select('orders.id')
        .where('orders.offerer', '=', wallet.address)
        .execute();
      expect(permits).toHaveLength(1);
    });
  });
});
