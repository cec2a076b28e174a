/**
 * Scenario 14 (only when BENCH_ONLY names it): the quoted liquidity provider fades. Ferry as the open-orders suite
 * runs it (test/support/harness.ts: the API and the worker in this process, two devnets with LayerZero and the
 * relay), both chains on a block every second (anvil interval mining), no time travel. A money mover's request is
 * quoted by an LP that never fills; a second LP's reference bot (`createLpBot`, open filling on by default) runs all
 * along and finishes the order once its exclusivity lapses. Each swap's time is from sending POST /api/v1/swaps to
 * the order reading `completed` (polled every 100 ms), for each EXCLUSIVITY_SECONDS setting on a fresh harness.
 */
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import { createFerryApi } from '../../src/lp/ferry-api.ts';
import { createLpBot } from '../../src/lp/lp-bot.ts';
import type { BotLog } from '../../src/lp/lp-bot-log.ts';
import { anvilKnobs } from '../../test/support/anvil-knobs.ts';
import { approveEscrow, chainTime, transferToken } from '../../test/support/chain-actors.ts';
import { type Harness, startHarness } from '../../test/support/harness.ts';
import { QUICK } from '../harness/bench-settings.ts';
import type { BackendRun, ScenarioRow } from '../harness/report.ts';

const INPUT = 2_000_000n;
const OUTPUT = 1_990_000n;
/** EXCLUSIVITY_SECONDS settings measured, in order (rows 14a, 14b, …). */
const SETTINGS = (process.env.BENCH_FADE_EXCLUSIVITY ?? '60,5').split(',').map(Number);
/** Swaps per setting, started BENCH_FADE_SPACING_MS apart on the same server (each is timed on its own). */
const RUNS = Number(process.env.BENCH_FADE_RUNS ?? (QUICK ? 1 : 3));
const SPACING_MS = Number(process.env.BENCH_FADE_SPACING_MS ?? 20_000);
/** The second LP's fills per proof message: 1 proves each fill at once (the bot's default batches up to 8 s). */
const PROVE_BATCH = Number(process.env.BENCH_FADE_PROVE_BATCH ?? 1);

interface FadeRun {
  orderId: string;
  /** Seconds from the swap to the exclusivityDeadline on the output chain's clock, read at the swap. */
  exclusivityLeftS: number;
  depositedMs: number | null;
  filledMs: number | null;
  completedMs: number | null;
  filledBy: string | null;
}

type Party = { id: string; apiKey: string };

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number) : 0;
};

/** One swap: request, the fading LP's quote, accept, sign, swap; then the order polled until completed. */
async function fadeOnce(h: Harness, mm: Party, lp: Party, timeoutMs: number): Promise<FadeRun> {
  const request = await h.http('POST', '/api/v1/quote-requests', {
    apiKey: mm.apiKey,
    body: {
      recipient: h.otherWallet.address,
      offerer: h.offerer.address,
      inputToken: h.usdcA,
      outputToken: h.usdcB,
      inputAmount: INPUT.toString(),
      inputChain: h.chainA,
      outputChain: h.chainB,
    },
  });
  if (request.status !== 201)
    throw new Error(`quote request: ${request.status} ${JSON.stringify(request.body)}`);
  const quote = await h.http('POST', '/api/v1/quotes', {
    apiKey: lp.apiKey,
    body: { quoteRequestId: request.body.data.quoteId, outputAmount: OUTPUT.toString() },
  });
  if (quote.status !== 201) throw new Error(`quote: ${quote.status} ${JSON.stringify(quote.body)}`);
  const { quoteId, orderId, typedData } = quote.body.data;
  const accepted = await h.http('POST', `/api/v1/quotes/${quoteId}/accept`, { apiKey: mm.apiKey });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status}`);
  const signature = await h.offerer.signTypedData(typedData);
  const outputNow = await chainTime(h, h.chainB);
  const t0 = performance.now();
  const swap = await h.http('POST', '/api/v1/swaps', {
    apiKey: mm.apiKey,
    body: { orderId, quoteId, signature },
  });
  if (swap.status !== 201) throw new Error(`swap: ${swap.status} ${JSON.stringify(swap.body)}`);
  const run: FadeRun = {
    orderId,
    exclusivityLeftS: Number(BigInt(typedData.message.exclusivityDeadline) - outputNow),
    depositedMs: null,
    filledMs: null,
    completedMs: null,
    filledBy: null,
  };
  const seen = { deposited: 'depositedMs', filled: 'filledMs', completed: 'completedMs' } as const;
  while (performance.now() - t0 < timeoutMs && run.completedMs === null) {
    const order = (await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey })).body?.data;
    const at = performance.now() - t0;
    const status = order?.status as string | undefined;
    // A later status implies the earlier ones: each is stamped when first seen.
    const reached = ['deposited', 'filled', 'completed'].slice(
      0,
      ['deposited', 'filled', 'completed'].indexOf(status ?? '') + 1,
    ) as (keyof typeof seen)[];
    for (const s of reached) if (run[seen[s]] === null) run[seen[s]] = at;
    if (status === 'failed' || status === 'refunded') throw new Error(`order ${orderId} ${status}`);
    if (status === 'completed') run.filledBy = order.details?.filledBy ?? null;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return run;
}

/** Ferry with EXCLUSIVITY_SECONDS = `exclusivity`, the fading LP and the second LP's bot; RUNS swaps. */
async function measureSetting(exclusivity: number, say: (line: string) => void): Promise<FadeRun[]> {
  const h = await startHarness({
    worker: {
      enabled: true,
      pollMs: 500,
      leaseMs: 30_000,
      relayerKey: null,
      attesterKey: null,
      faultInject: [],
    },
    exclusivitySeconds: exclusivity,
    rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
  });
  // The harness's clock is moved by hand for expiry tests; here Ferry reads the real time, as in production.
  h.clock.now = () => new Date();
  const quotedLp = privateKeyToAccount(ANVIL_KEYS[4] as `0x${string}`);
  const secondKey = generatePrivateKey();
  const secondLp = privateKeyToAccount(secondKey);
  const warnings: string[] = [];
  const log = Object.fromEntries(
    (['debug', 'info', 'warn', 'error'] as const).map((level) => [
      level,
      (_: object, msg: string) => {
        if (level === 'warn' || level === 'error') warnings.push(msg);
      },
    ]),
  ) as unknown as BotLog;
  try {
    const mm = await h.createAccount('moneyMover');
    const fading = await h.createAccount('liquidityProvider', 'fades', quotedLp.address);
    const second = await h.createAccount('liquidityProvider', 'second', secondLp.address);
    const chains = [h.chainA, h.chainB].map((name) => anvilKnobs(h.registry.chain(name)?.rpcUrl as string));
    await chains[1]?.setBalance(secondLp.address, parseEther('10'));
    await transferToken(h, h.chainB, h.usdcB, quotedLp, secondLp.address, 100_000_000n);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, INPUT * BigInt(RUNS));
    for (const chain of chains) await chain.blockTime(1);
    const lpBot = createLpBot({
      api: createFerryApi({ baseUrl: h.baseUrl, apiKey: second.apiKey }),
      privateKey: secondKey,
      spreadBps: 25,
      log,
      journal: h.lpJournal('second'),
      proveBatch: PROVE_BATCH,
    });
    lpBot.start(300);
    try {
      const timeoutMs = (60 + exclusivity + 120) * 1000;
      const runs = await Promise.all(
        Array.from({ length: RUNS }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * SPACING_MS));
          const run = await fadeOnce(h, mm, fading, timeoutMs);
          say(`   exclusivity ${exclusivity} s, swap ${i + 1}: ${JSON.stringify(run)}`);
          return run;
        }),
      );
      for (const run of runs) {
        if (run.filledBy && run.filledBy.toLowerCase() !== secondLp.address.toLowerCase()) {
          throw new Error(`order ${run.orderId} filled by ${run.filledBy}, not the second LP`);
        }
      }
      if (warnings.length) say(`   LP bot warnings: ${warnings.slice(0, 5).join(' | ')}`);
      return runs;
    } finally {
      await lpBot.stop();
    }
  } finally {
    await h.close();
  }
}

function fadeRow(id: string, exclusivity: number, runs: FadeRun[]): ScenarioRow {
  const done = runs.filter((r) => r.completedMs !== null);
  const ms = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
  const completed = ms(done.map((r) => r.completedMs));
  const filled = ms(done.map((r) => r.filledMs));
  const s = (x: number) => `${(x / 1000).toFixed(1)} s`;
  return {
    id,
    name: `quoted LP fades, EXCLUSIVITY_SECONDS=${exclusivity}, 1 s blocks: swap → completed by a second LP's bot`,
    unit: 'swaps',
    rate: done.length,
    p50Ms: pct(completed, 50),
    p99Ms: pct(completed, 99),
    cpuPercent: 0,
    peakRssMb: 0,
    ratio: null,
    target: null,
    pass: done.length === runs.length ? null : false,
    notes:
      `${done.length}/${runs.length} completed; swap → completed ${completed.map(s).join(', ')} (p50 ${s(pct(completed, 50))}); ` +
      `swap → filled p50 ${s(pct(filled, 50))}; swap → deposited p50 ${s(pct(ms(runs.map((r) => r.depositedMs)), 50))}; ` +
      `exclusivityDeadline ${runs.map((r) => r.exclusivityLeftS).join(', ')} s after the swap (the quote's validity ` +
      `+ EXCLUSIVITY_SECONDS, from the quote); second LP's bot proveBatch ${PROVE_BATCH}`,
    raw: { exclusivity, runs },
  };
}

/** Scenario 14: one fresh harness per EXCLUSIVITY_SECONDS setting. */
export async function runFadedLp(say: (line: string) => void): Promise<BackendRun> {
  say(
    `\n== quoted LP fades (14): EXCLUSIVITY_SECONDS ${SETTINGS.join(' and ')}, ${RUNS} swap(s) each ${SPACING_MS / 1000} s apart, 1 s blocks, real time`,
  );
  const scenarios: ScenarioRow[] = [];
  for (const [i, exclusivity] of SETTINGS.entries()) {
    const row = fadeRow(
      `14${String.fromCharCode(97 + i)}`,
      exclusivity,
      await measureSetting(exclusivity, say),
    );
    say(`  ${row.id}  ${row.notes}`);
    scenarios.push(row);
  }
  return {
    backend: 'quoted LP fades (harness: API + worker in process, devnets on 1 s blocks)',
    seed: {},
    scenarios,
  };
}
