import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transferToken } from './support/chain-actors.ts';
import { acceptQuote, createQuote, createQuoteRequest, expectError } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/** 1,000 USDC, in base units: everything the LP's fill address holds on the output chain. */
const HELD = 1_000_000_000n;

/**
 * An LP's balance covers all of its promises at once, not each quote alone: a quote is refused when the fill
 * address does not hold it on top of the LP's other active quotes and unfilled orders on that chain and token.
 * Real server, real anvil balance, SQLite or PostgreSQL.
 */
describe('a liquidity provider’s coverage across its open quotes and orders', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness({ rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } });
    mm = await h.createAccount('moneyMover');
    const wallet = privateKeyToAccount(generatePrivateKey());
    lp = await h.createAccount('liquidityProvider', 'thin', wallet.address);
    await transferToken(h, h.chainB, h.usdcB, h.otherWallet, wallet.address, HELD);
  });
  afterAll(async () => {
    await h?.close();
  });

  const request = (input: bigint) => createQuoteRequest(h, mm.apiKey, { inputAmount: input.toString() });
  const quote = (quoteRequestId: string, output: bigint) =>
    h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId, outputAmount: output.toString() },
    });

  it('two quotes that together exceed the balance: the second is refused with INSUFFICIENT_BALANCE', async () => {
    const first = await quote(await request(900_000_000n), 900_000_000n);
    expect(first.status).toBe(201);
    const second = await request(900_000_000n);
    const refused = await quote(second, 900_000_000n);
    expectError(refused, 422, 'INSUFFICIENT_BALANCE', 'body.outputAmount');
    expect(refused.body.details[0].message).toContain(`holds ${HELD}`);
    expect(refused.body.details[0].message).toContain('900000000 of it is already promised');
    // What is left fits exactly.
    expect((await quote(second, 100_000_000n)).status).toBe(201);
    expectError(
      await quote(await request(10_000_000n), 1n),
      422,
      'INSUFFICIENT_BALANCE',
      'body.outputAmount',
    );
  });

  it('an expired quote frees its amount', async () => {
    h.clock.advance(h.config.quoteValiditySeconds + 1);
    expect((await quote(await request(900_000_000n), 900_000_000n)).status).toBe(201);
  });

  it('an accepted quote counts until its swap’s deposit window closes, and its order until it is filled', async () => {
    h.clock.advance(h.config.quoteValiditySeconds + 1);
    const qrId = await request(800_000_000n);
    const accepted = await createQuote(h, lp.apiKey, qrId, '800000000');
    await acceptQuote(h, mm.apiKey, accepted.quoteId);
    // Accepted, not yet swapped: 800 are promised although the quote is no longer active.
    expectError(await quote(await request(300_000_000n), 300_000_000n), 422, 'INSUFFICIENT_BALANCE');
    // Swapped: the order is `created` (no worker here) and still holds the 800.
    const signature = await h.offerer.signTypedData(accepted.typedData);
    const swap = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      body: { orderId: accepted.orderId, quoteId: accepted.quoteId, signature },
    });
    expect(swap.status).toBe(201);
    expectError(await quote(await request(300_000_000n), 300_000_000n), 422, 'INSUFFICIENT_BALANCE');
    expect((await quote(await request(200_000_000n), 200_000_000n)).status).toBe(201);
  });

  it('an accepted quote never swapped stops counting once its deposit window has closed', async () => {
    h.clock.advance(h.config.quoteValiditySeconds + 1);
    const accepted = await createQuote(h, lp.apiKey, await request(100_000_000n), '100000000');
    await acceptQuote(h, mm.apiKey, accepted.quoteId);
    h.clock.advance(h.config.quoteValiditySeconds + 1);
    // 800 (the order) + 100 (accepted) are promised: 150 does not fit, 100 does.
    expectError(await quote(await request(150_000_000n), 150_000_000n), 422, 'INSUFFICIENT_BALANCE');
    h.clock.advance(h.config.openWindowSeconds + 1);
    expect((await quote(await request(150_000_000n), 150_000_000n)).status).toBe(201);
  });
});
