/**
 * The scenarios measured on each backend's seeded Ferry (2-7 and 10), each recording its rows through the
 * context; the table (scenario-table.ts) gives their order.
 */

import { CONNECTIONS, DURATION, LP_COUNT, mb, QUICK, say, WARMUP } from '../harness/bench-settings.ts';
import { drive } from '../harness/load.ts';
import { row } from '../harness/load-row.ts';
import { profiledOnPg } from '../harness/pg-profile.ts';
import type { ScenarioRow } from '../harness/report.ts';
import type { ScenarioContext } from '../harness/scenario.ts';
import { OPEN_REQUEST_OUTPUT } from '../seed/seeder.ts';
import { driveLpStream } from './lp-stream-driver.ts';
import { driveFlow } from './swap-flow-driver.ts';

/** 2: a page of the public order list. */
export async function publicOrdersPage({
  server,
  load,
  warm,
  record,
  nextBaseline,
}: ScenarioContext): Promise<void> {
  const spec = { path: '/api/public/orders?pageSize=50', ...load };
  await drive(server, { ...spec, ...warm });
  record(
    row('2', 'GET /api/public/orders (page of 50)', await drive(server, spec), await nextBaseline(), {
      ratio: 0.35,
    }),
  );
}

/** 3: one of the money mover's orders by id, with its API key. */
export async function ownOrder({
  server,
  seed,
  mmKey,
  load,
  warm,
  record,
  nextBaseline,
}: ScenarioContext): Promise<void> {
  const ids = seed.moneyMoverOrderIds;
  let i = 0;
  const spec = {
    path: '/api/v1/orders/x',
    headers: mmKey,
    next: () => ({ path: `/api/v1/orders/${ids[i++ % ids.length]}` }),
    ...load,
  };
  await drive(server, { ...spec, ...warm });
  record(row('3', 'GET /api/v1/orders/{id} (API key)', await drive(server, spec), await nextBaseline()));
}

/** 10: quote requests fanned out to LP WebSockets. */
export async function lpStream({
  backend,
  server,
  seeder,
  accounts,
  quoteRequestBody,
  record,
}: ScenarioContext): Promise<void> {
  const lpKeys = await seeder.extraLiquidityProviders(100);
  const rate = 200;
  const r = await driveLpStream(server, {
    lpKeys,
    moneyMoverKey: accounts.moneyMover.apiKey,
    body: quoteRequestBody,
    ratePerSec: rate,
    seconds: DURATION,
  });
  record({
    id: '10',
    name: `quote request → ${r.sockets} LP WebSockets (quoteRequests)`,
    unit: 'req/s',
    rate: r.achievedRatePerSec,
    p50Ms: r.fromOccurredAt.p50Ms,
    p99Ms: r.fromOccurredAt.p99Ms,
    cpuPercent: r.cpuPercent,
    peakRssMb: mb(r.peakRssBytes),
    ratio: null,
    target: backend.startsWith('embedded') ? 'p99 < 10 ms' : null,
    pass: backend.startsWith('embedded')
      ? r.connected === r.sockets && r.receipts === r.expectedReceipts && r.fromOccurredAt.p99Ms < 10
      : null,
    notes: `${r.created}/${r.requests} quote requests created at ${rate}/s (open loop, ${r.achievedRatePerSec.toFixed(0)}/s achieved); ${r.connected}/${r.sockets} sockets subscribed; ${r.receipts}/${r.expectedReceipts} receipts; latency from the event's occurredAt (stamped before the write commits, so an upper bound on commit → receipt), max ${r.fromOccurredAt.maxMs} ms. From the POST's 201 at the driver instead: p50/p99 ${r.fromResponse.p50Ms}/${r.fromResponse.p99Ms} ms (${r.fromResponse.earlierThanResponse} receipts came before their 201).`,
    raw: r,
  });
}

/** 4: quote requests, one offerer. */
export async function createQuoteRequests({
  server,
  mmKey,
  quoteRequestBody,
  load,
  warm,
  record,
  nextBaseline,
  pgProbe,
}: ScenarioContext): Promise<void> {
  const spec = {
    method: 'POST' as const,
    path: '/api/v1/quote-requests',
    headers: mmKey,
    body: quoteRequestBody,
    ...load,
  };
  await drive(server, { ...spec, ...warm });
  const { result: r, note } = await profiledOnPg(pgProbe, () => drive(server, spec));
  record(
    row(
      '4',
      'POST /api/v1/quote-requests',
      r,
      await nextBaseline(),
      { ratio: 0.2 },
      `one offerer, every amount covered: its balance is read from the devnet RPC about once per BALANCE_CACHE_MS (1 s), the other checks use that reading (anvil CPU ${r.proc.helperCpuPercent.toFixed(0)} %).${note}`,
    ),
  );
}

/** Live quotes each LP holds during 5b (issue: an LP's quote in constant time however many are live). */
const LIVE_QUOTES_PER_LP = 5_000;

/**
 * 5: quotes on open requests, spread over the LPs; 5b: the same once each LP holds LIVE_QUOTES_PER_LP live quotes
 * on the chain and token it quotes on, as a ratio to 5 (target ≥ 0.8 ×).
 */
export async function createQuotes(ctx: ScenarioContext): Promise<void> {
  const { seeder, route, postgres, record, nextBaseline } = ctx;
  const five = await driveQuotes(ctx);
  const fiveRow = row(
    '5',
    'POST /api/v1/quotes',
    five.result,
    await nextBaseline(),
    postgres ? {} : { rate: 3000 },
    `${five.open} open requests × ${LP_COUNT} LPs.${five.note}`,
  );
  record(fiveRow);
  await quotesAtSteadyRate(ctx);
  say(`   seeding ${LIVE_QUOTES_PER_LP} live quotes per LP for 5b`);
  const started = Date.now();
  const live = await seeder.seedLiveQuotes(LIVE_QUOTES_PER_LP, route);
  const seeded = `${live} live quotes seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`;
  const fiveB = await driveQuotes(ctx);
  const r = row(
    '5b',
    `POST /api/v1/quotes, ${LIVE_QUOTES_PER_LP.toLocaleString('en-US')} live quotes per LP`,
    fiveB.result,
    await nextBaseline(),
    {},
    `${fiveB.open} open requests × ${LP_COUNT} LPs, each LP holding ${LIVE_QUOTES_PER_LP} live quotes on the same chain and token (${seeded}).${fiveB.note}`,
  );
  const ratio = r.rate / five.result.reqPerSec;
  // A ratio to a 5 that failed compares two other things.
  const pass = !r.failure && !fiveRow.failure && ratio >= 0.8;
  record({ ...r, vs: { ratio, of: '5' }, target: '≥ 0.8 × scenario 5', pass });
}

/** The steady quote rate of 5c, at which an LP's quote must answer within 50 ms at p99 (embedded). */
const STEADY_QUOTES_PER_SECOND = 1000;

/** 5c: quotes at a steady 1,000 a second (not as fast as they go): the latency an LP sees on a busy server. */
async function quotesAtSteadyRate(ctx: ScenarioContext): Promise<void> {
  const { postgres, record } = ctx;
  const steady = await driveQuotes(ctx, STEADY_QUOTES_PER_SECOND);
  const r = row(
    '5c',
    `POST /api/v1/quotes at a steady ${STEADY_QUOTES_PER_SECOND.toLocaleString('en-US')}/s`,
    steady.result,
    await ctx.nextBaseline(),
    {},
    `${steady.open} open requests × ${LP_COUNT} LPs, one every ${1000 / STEADY_QUOTES_PER_SECOND} ms (open loop, latency from each request's due time).${steady.note}`,
  );
  const onRate = steady.result.reqPerSec >= STEADY_QUOTES_PER_SECOND * 0.95;
  const pass = postgres ? null : !r.failure && onRate && r.p99Ms < 50;
  record({ ...r, target: postgres ? null : `p99 < 50 ms at ${STEADY_QUOTES_PER_SECOND}/s`, pass });
}

/**
 * Quotes of every bench LP on fresh open requests of the scenario's route, warm-up then measured: as fast as they go,
 * or at `rate` a second.
 */
async function driveQuotes(
  { server, seeder, accounts, route, load, warm, pgProbe }: ScenarioContext,
  rate?: number,
) {
  const lps = accounts.liquidityProviders;
  // Room for 5,500 quotes a second (or twice `rate`: autocannon's rate limit may set up requests it then drops) over
  // warm-up and run, each pair once: past it an LP would quote a request twice. autocannon may run on to its next whole second. (One LP's quotes of 5, 5b and 5c stay within its
  // room beside the seeded orders, and 6a's after them: seed/seeder.ts OPEN_REQUEST_INPUT.)
  const capacity = Math.ceil(((DURATION + WARMUP + 1) * (rate === undefined ? 5500 : 2 * rate)) / LP_COUNT);
  const open = await seeder.seedOpenRequests(capacity, route);
  let i = 0;
  const spec = {
    method: 'POST' as const,
    path: '/api/v1/quotes',
    // Every LP in turn on each request, as LPs answer a new request together: the LPs' quotes are in flight at once
    // (on PostgreSQL, on as many locks), not one LP's thousands in a row.
    next: () => {
      const n = i++;
      const lp = lps[n % lps.length];
      return {
        headers: { 'x-api-key': lp?.apiKey ?? '' },
        body: {
          quoteRequestId: open[Math.floor(n / lps.length) % open.length],
          outputAmount: OPEN_REQUEST_OUTPUT.toString(),
          validFor: 600,
        },
      };
    },
    ...load,
  };
  const steady = rate === undefined ? {} : { ratePerSec: rate };
  await drive(server, { ...spec, ...warm, ...steady });
  const { result, note } = await profiledOnPg(pgProbe, () => drive(server, { ...spec, ...steady }));
  return { result, note, open: open.length };
}

/** 6a: the whole flow, concurrent; 6b: swaps of accepted, signed quotes. */
export async function swapFlow({
  server,
  seeder,
  accounts,
  route,
  mmKey,
  record,
  nextBaseline,
  pgProbe,
}: ScenarioContext): Promise<void> {
  const concurrency = 16;
  const flow = await driveFlow(server, {
    moneyMoverKey: accounts.moneyMover.apiKey,
    lpKeys: accounts.liquidityProviders.map((lp) => lp.apiKey),
    route,
    concurrency,
    durationSeconds: DURATION,
  });
  const attempts = flow.flows + flow.failures;
  const failed = flow.failures > 0.01 * attempts;
  const s6a: ScenarioRow = {
    id: '6a',
    name: 'whole flow: request → quote → accept → sign → swap',
    unit: 'flows/s',
    rate: flow.flowsPerSec,
    p50Ms: flow.p50Ms,
    p99Ms: flow.p99Ms,
    cpuPercent: flow.cpuPercent,
    peakRssMb: mb(flow.peakRssBytes),
    ratio: null,
    target: null,
    pass: failed ? false : null,
    ...(failed ? { failure: `${flow.failures} of ${attempts} flows failed` } : {}),
    notes: `${concurrency} concurrent flows, 4 requests each (${(flow.flowsPerSec * 4).toFixed(0)} req/s); the offerer's signature is made in the driver.${
      flow.failures ? ` ${flow.failures} failed flows, e.g. ${flow.failureSample}` : ''
    }`,
    raw: flow,
  };
  record(s6a);

  const count = QUICK ? 4_000 : Math.max(5_000, DURATION * 3_000);
  say(`   preparing ${count} accepted, signed quotes for 6b`);
  const swaps = await seeder.prepareSwaps(count, 3600);
  let i = 0;
  const { result: r, note } = await profiledOnPg(pgProbe, () =>
    drive(server, {
      method: 'POST',
      path: '/api/v1/swaps',
      headers: mmKey,
      next: () => ({ body: swaps[i++ % swaps.length] }),
      connections: CONNECTIONS,
      amount: swaps.length,
    }),
  );
  record(
    row(
      '6b',
      'POST /api/v1/swaps (signature verified)',
      r,
      await nextBaseline(),
      { rate: 1000 },
      `${swaps.length} distinct accepted quotes, each executed once (201 expected).${note}`,
    ),
  );
}
