import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import type { OrderStatus } from '../src/domain/lifecycle.ts';
import { promiseBounds } from '../src/domain/lp-coverage.ts';
import { transitionOrder } from '../src/store/ledgers/settlement-store.ts';
import { backfillLpPromises } from '../src/store/migrations/0019-lp-promises.ts';
import {
  type CommitmentKey,
  lpCommitted,
  lpCommittedFromRows,
} from '../src/store/tables/lp-commitments-store.ts';
import { openRequestedInput, openRequestedInputFromRows } from '../src/store/tables/quote-requests-store.ts';
import { transferToken } from './support/chain-actors.ts';
import { createQuoteRequest, expectError } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/** Deterministic randomness, so a failing sequence can be replayed from the seed in the failure message. */
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return {
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]): T | undefined => items[Math.floor(next() * items.length)],
  };
}

/** What a step does, weighted by repetition. */
const OPS: readonly string[] = [
  ...['request', 'request', 'quote', 'quote', 'quote', 'quote', 'accept', 'accept', 'swap', 'swap'],
  ...['clock', 'sweep', 'order', 'order'],
];

interface LiveQuote {
  readonly quoteId: string;
  readonly orderId: string;
  readonly typedData: unknown;
  state: 'active' | 'accepted' | 'swapped';
}

/**
 * An LP's open promises are kept as running totals (migrations/0019-lp-promises.ts), and so is the input of an
 * offerer's open requests (0023-offerer-input-totals.ts); after random sequences of
 * quotes, accepts, declines, swaps, expiry (clock and sweep), fills, failures and refunds through the real API (the
 * order moves through the worker's own store function), the totals equal the promises recomputed from the rows
 * the way the coverage check read them before (lpCommittedFromRows). Real server, SQLite or PostgreSQL.
 */
describe('LP promise totals reconcile with the quote and order rows', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  const lps: { id: string; apiKey: string }[] = [];

  beforeAll(async () => {
    h = await startHarness({
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
      expirySweepMs: 60_000,
    });
    mm = await h.createAccount('moneyMover');
    lps.push(await h.createAccount('liquidityProvider', 'rich'));
    // A thin LP: 40 USDC on chain B only, so refusals for coverage are part of the sequences.
    const wallet = privateKeyToAccount(generatePrivateKey());
    lps.push(await h.createAccount('liquidityProvider', 'thin', wallet.address));
    await transferToken(h, h.chainB, h.usdcB, h.otherWallet, wallet.address, 40_000_000n);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  function keys(): CommitmentKey[] {
    const now = h.clock.now();
    const at = promiseBounds(now, h.config.openWindowSeconds);
    return lps.flatMap((lp) => [
      { lpAccountId: lp.id, chain: h.chainB, token: h.usdcB, ...at },
      { lpAccountId: lp.id, chain: h.chainA, token: h.usdcA, ...at },
    ]);
  }

  async function expectReconciled(step: string): Promise<bigint> {
    const { database } = h.app;
    let total = 0n;
    for (const key of keys()) {
      const reference = await lpCommittedFromRows(database.db, key);
      const kept = await database.transaction((trx) => lpCommitted(trx, database.dialect, key));
      expect({ step, key: `${key.lpAccountId} ${key.chain}`, kept }).toEqual({
        step,
        key: `${key.lpAccountId} ${key.chain}`,
        kept: reference,
      });
      total += reference;
    }
    // The offerer's open input totals (migration 0023) likewise, for every offerer, chain and token seen.
    const now = h.clock.now();
    const funds = await database.db
      .selectFrom('quote_requests')
      .select(['offerer', 'input_chain as chain', 'input_token as token'])
      .distinct()
      .execute();
    for (const f of funds) {
      const reference = await openRequestedInputFromRows(database.db, f, now);
      const kept = await openRequestedInput(database.db, f, now);
      expect({ step, offerer: `${f.offerer} ${f.chain}`, kept }).toEqual({
        step,
        offerer: `${f.offerer} ${f.chain}`,
        kept: reference,
      });
    }
    return total;
  }

  async function runSequence(seed: number, steps: number): Promise<{ ops: Record<string, number> }> {
    const rnd = random(seed);
    const requests: { id: string; input: number }[] = [];
    const quotes: LiveQuote[] = [];
    const orders: { id: string; status: OrderStatus }[] = [];
    const ops: Record<string, number> = {};
    const count = (op: string) => {
      ops[op] = (ops[op] ?? 0) + 1;
    };
    for (let i = 0; i < steps; i++) {
      const op = rnd.pick(OPS)!;
      const step = `seed ${seed} step ${i} ${op}`;
      if (op === 'request') {
        const toA = rnd.int(0, 3) === 0;
        const input = rnd.int(1, 30);
        const id = await createQuoteRequest(h, mm.apiKey, {
          inputAmount: String(input * 1_000_000),
          ...(toA
            ? { inputChain: h.chainB, inputToken: h.usdcB, outputChain: h.chainA, outputToken: h.usdcA }
            : {}),
        });
        requests.push({ id, input });
        count('request');
      } else if (op === 'quote') {
        const request = rnd.pick(requests);
        const lp = rnd.pick(lps)!;
        if (!request) continue;
        const res = await h.http('POST', '/api/v1/quotes', {
          apiKey: lp.apiKey,
          body: {
            quoteRequestId: request.id,
            outputAmount: String(rnd.int(1, request.input) * 1_000_000),
            validFor: rnd.int(10, 60),
          },
        });
        if (res.status === 201) {
          quotes.push({ ...(res.body.data as LiveQuote), state: 'active' });
          count('quote');
        } else {
          // Refused for coverage, for a closed request, or a second active quote of the LP on the request.
          expect([409, 422], `${step} ${JSON.stringify(res.body)}`).toContain(res.status);
          count(`quote ${res.body.code}`);
        }
      } else if (op === 'accept') {
        const quote = rnd.pick(quotes.filter((q) => q.state === 'active'));
        if (!quote) continue;
        const res = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: mm.apiKey });
        // The request's other active quotes are declined with it (a later accept of one answers 409).
        if (res.status === 200) quote.state = 'accepted';
        count(`accept ${res.status}`);
      } else if (op === 'swap') {
        const quote = rnd.pick(quotes.filter((q) => q.state === 'accepted'));
        if (!quote) continue;
        const signature = await h.offerer.signTypedData(quote.typedData as never);
        const res = await h.http('POST', '/api/v1/swaps', {
          apiKey: mm.apiKey,
          body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
        });
        if (res.status === 201) {
          quote.state = 'swapped';
          orders.push({ id: quote.orderId, status: 'created' });
        }
        count(`swap ${res.status}`);
      } else if (op === 'clock') {
        h.clock.advance(rnd.int(1, 20));
        count('clock');
      } else if (op === 'sweep') {
        await h.app.sweeper.sweep();
        count('sweep');
      } else {
        const order = rnd.pick(orders.filter((o) => o.status === 'created' || o.status === 'deposited'));
        if (!order) continue;
        const to = rnd.pick<OrderStatus>(
          order.status === 'created'
            ? ['deposited', 'deposited', 'failed']
            : ['filled', 'refunded', 'completed'],
        )!;
        const moved = await h.app.database.transaction((trx) =>
          transitionOrder(trx, order.id, order.status, { status: to }, h.clock.now(), 'test'),
        );
        expect(moved, step).toBe(true);
        order.status = to;
        count(`order → ${to}`);
      }
      await expectReconciled(step);
    }
    return { ops };
  }

  it('after random sequences of quote, accept, decline, swap, expiry, fill, failure and refund', async () => {
    const seen: Record<string, number> = {};
    for (const seed of [11, 12, 13, 14]) {
      const { ops } = await runSequence(seed, 120);
      for (const [op, n] of Object.entries(ops)) seen[op] = (seen[op] ?? 0) + n;
      // The migration's backfill, from the rows the sequence left (live quotes among them), gives the same totals.
      await h.app.database.db.deleteFrom('lp_promises').execute();
      await backfillLpPromises(h.app.database.db as never, h.app.database.dialect);
      await expectReconciled(`seed ${seed} backfilled from the rows`);
      // Everything lapses by time but the unfilled orders; the sweep deletes the lapsed totals rows.
      h.clock.advance(h.config.quoteValiditySeconds + h.config.openWindowSeconds + 700);
      await h.app.sweeper.sweep();
      await expectReconciled(`seed ${seed} after the sweep`);
      // Every request has left `open`: the offerer's totals are spent and their rows gone.
      expect(await h.app.database.db.selectFrom('offerer_input_totals').selectAll().execute()).toEqual([]);
    }

    // The sequences did exercise every kind of change, refusals included.
    for (const op of ['quote', 'accept 200', 'swap 201', 'order → deposited', 'quote INSUFFICIENT_BALANCE']) {
      expect(seen[op] ?? 0, `${op} in ${JSON.stringify(seen)}`).toBeGreaterThan(0);
    }
    expect(
      (seen['order → filled'] ?? 0) + (seen['order → refunded'] ?? 0) + (seen['order → failed'] ?? 0),
    ).toBeGreaterThan(0);
  }, 300_000);

  it('quotes of one LP written together: a second quote on one request is refused alone', async () => {
    const lp = await h.createAccount('liquidityProvider', 'batcher');
    const ids = await Promise.all(
      Array.from({ length: 12 }, () => createQuoteRequest(h, mm.apiKey, { inputAmount: '10000000' })),
    );
    // The first quote is written alone; the others (one of them twice) arrive meanwhile and go together (on
    // PostgreSQL: an embedded write is usually done before the next request reaches it).
    const targets = [...ids, ids[5] as string];
    const answers = await Promise.all(
      targets.map((quoteRequestId) =>
        h.http('POST', '/api/v1/quotes', {
          apiKey: lp.apiKey,
          body: { quoteRequestId, outputAmount: '1000000' },
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(12);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(1);
    expectError(refused[0] as (typeof answers)[number], 409, 'CONFLICT', 'body.quoteRequestId');
    const key = { ...(keys()[0] as CommitmentKey), lpAccountId: lp.id };
    expect(await lpCommittedFromRows(h.app.database.db, key)).toBe(12_000_000n);
    expect(await lpCommitted(h.app.database.db, h.app.database.dialect, key)).toBe(12_000_000n);
  });

  it('many concurrent quotes of one LP, through three instances: exactly those its balance covers succeed', async () => {
    // Each instance queues one LP's quotes on a chain and token and judges them together; across instances only
    // the database's lock keeps them apart (PostgreSQL: more instances on the same database).
    const others = h.app.database.dialect === 'postgres' ? [0, 1] : [];
    const instances = await Promise.all(
      others.map(() =>
        createApp({
          config: { ...h.config, port: 0 },
          registry: h.registry,
          clock: h.clock,
          log: pino({ level: 'silent' }),
        }),
      ),
    );
    const urls = [h.baseUrl, ...(await Promise.all(instances.map((app) => app.listen())))];
    try {
      for (let round = 0; round < 3; round++) {
        const wallet = privateKeyToAccount(generatePrivateKey());
        const lp = await h.createAccount('liquidityProvider', `racer ${round}`, wallet.address);
        // Covers 11 quotes of 10 USDC and half of a twelfth.
        await transferToken(h, h.chainB, h.usdcB, h.otherWallet, wallet.address, 115_000_000n);
        const ids = await Promise.all(
          Array.from({ length: 36 }, () => createQuoteRequest(h, mm.apiKey, { inputAmount: '10000000' })),
        );
        const answers = await Promise.all(
          ids.map((quoteRequestId, i) =>
            h.http('POST', '/api/v1/quotes', {
              apiKey: lp.apiKey,
              body: { quoteRequestId, outputAmount: '10000000' },
              baseUrl: urls[i % urls.length],
            }),
          ),
        );
        expect(answers.filter((a) => a.status === 201)).toHaveLength(11);
        for (const refused of answers.filter((a) => a.status !== 201)) {
          expectError(refused, 422, 'INSUFFICIENT_BALANCE', 'body.outputAmount');
        }
        const racer = { ...(keys()[0] as CommitmentKey), lpAccountId: lp.id };
        expect(await lpCommittedFromRows(h.app.database.db, racer)).toBe(110_000_000n);
        const kept = await h.app.database.transaction((trx) =>
          lpCommitted(trx, h.app.database.dialect, racer),
        );
        expect(kept).toBe(110_000_000n);
      }
    } finally {
      await Promise.all(instances.map((app) => app.close()));
    }
  }, 120_000);
});
