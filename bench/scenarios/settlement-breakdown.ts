/**
 * The settlement scenario's arithmetic: each measured swap's status events and transaction times turned into the
 * per-step breakdown (actor, chain, Ferry observing) and the shares of the whole.
 */
import { percentile } from '../harness/percentile.ts';

export const STEPS = ['deposited', 'filled', 'completed'] as const;
export type Step = (typeof STEPS)[number];

/** One swap's times, all on this machine's clock (ms). */
export interface SwapTimes {
  orderId: string;
  sentAt: number;
  /** occurredAt of order.created and of each order.updated, by status (server clock, same machine). */
  events: Partial<Record<'created' | Step, number>>;
  completedReceivedAt: number | null;
  failed: string | null;
}

export interface StepBreakdown {
  /** From the previous status's event to the step's transaction entering the mempool: the actor (worker or LP bot). */
  readonly actP50Ms: number;
  /** In the mempool until a block held it (the chain's own time). */
  readonly chainP50Ms: number;
  /** From that block to Ferry's event for the step (confirmations, polling, the write). */
  readonly observeP50Ms: number;
  readonly observeP99Ms: number;
  /**
   * With interval blocks: the observe time allowed, one block beyond the chain's confirmations (the registry's
   * `confirmations` of the chain the step's transaction lands on, times the block time); null on instant chains.
   */
  readonly observeAllowanceMs: number | null;
  /** The whole step, previous event to this one. */
  readonly stepP50Ms: number;
  readonly stepP99Ms: number;
}

export interface SettlementResult {
  readonly blocks: string;
  readonly swaps: number;
  readonly completed: number;
  readonly failures: readonly string[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Swap sent → Ferry's `filled` event: what the recipient waits (a batched proof does not delay it). */
  readonly filledP50Ms: number;
  readonly filledP99Ms: number;
  /** Σ over the three transactions of (block seen − pending seen), over the total, summed over swaps. */
  readonly chainShare: number;
  /** The same for the LP bot's part (deposited event → fill pending) and Ferry's (every other actor and observe part). */
  readonly lpShare: number;
  readonly ferryShare: number;
  readonly steps: Readonly<Record<Step, StepBreakdown>>;
  /** Transactions whose mempool entry the watcher did not see (their chain time counts as 0). */
  readonly unseenPending: number;
  readonly seconds: number;
  /** The end of the LP bot's log when something failed (its warnings), else empty. */
  readonly botOutput: string;
}

/** When a step's transaction entered the mempool (null when the watcher missed it) and when a block held it. */
export interface TxTimes {
  readonly mined: number;
  readonly pending: number | null;
}

/** A completed swap with its three transactions' times: deposit, fill, settlement (null when unknown). */
export interface MeasuredSwap {
  readonly swap: SwapTimes & { completedReceivedAt: number };
  readonly txs: readonly (TxTimes | null)[];
}

type Samples = { act: number[]; chain: number[]; observe: number[]; all: number[] };

/** Sums and samples over the measured swaps. */
function tally(measured: readonly MeasuredSwap[]) {
  const totals: number[] = [];
  const step = Object.fromEntries(
    STEPS.map((s) => [
      s,
      { act: [] as number[], chain: [] as number[], observe: [] as number[], all: [] as number[] },
    ]),
  ) as Record<Step, Samples>;
  let chainSum = 0;
  let lpSum = 0;
  let ferrySum = 0;
  let totalSum = 0;
  let unseenPending = 0;
  for (const { swap: s, txs } of measured) {
    const total = s.completedReceivedAt - s.sentAt;
    totals.push(total);
    let chainTime = 0;
    STEPS.forEach((name, i) => {
      const before = i === 0 ? s.sentAt : s.events[STEPS[i - 1] as Step];
      const after = s.events[name];
      const tx = txs[i];
      if (before === undefined || after === undefined) return;
      step[name].all.push(after - before);
      if (!tx) return;
      const pending = tx.pending ?? tx.mined;
      if (tx.pending === null) unseenPending++;
      step[name].act.push(pending - before);
      step[name].chain.push(tx.mined - pending);
      step[name].observe.push(after - tx.mined);
      chainTime += tx.mined - pending;
      // The fill is the LP bot's move; the deposit and the settlement are Ferry's worker's.
      if (name === 'filled') lpSum += pending - before;
      else ferrySum += pending - before;
      ferrySum += after - tx.mined;
    });
    chainSum += chainTime;
    totalSum += total;
  }
  return { totals, step, chainSum, lpSum, ferrySum, totalSum, unseenPending };
}

/** Each swap's time from being sent to Ferry's `filled` event (swaps whose event was missed are left out). */
function filledTimes(measured: readonly MeasuredSwap[]): number[] {
  return measured.flatMap(({ swap }) =>
    swap.events.filled === undefined ? [] : [swap.events.filled - swap.sentAt],
  );
}

/** The batch's result; `confirmations` are the registry's, of the input and of the output chain. */
export function settlementResult(
  run: { label: string; count: number; seconds: number; blockSeconds: number | null },
  measured: readonly MeasuredSwap[],
  failures: readonly string[],
  confirmations: { input: number; output: number },
  botLog: string,
): SettlementResult {
  const { totals, step, chainSum, lpSum, ferrySum, totalSum, unseenPending } = tally(measured);
  const { blockSeconds } = run;
  const p = (values: number[], q: number) =>
    percentile(
      [...values].sort((a, b) => a - b),
      q,
    );
  totals.sort((a, b) => a - b);
  return {
    blocks: run.label,
    swaps: run.count,
    completed: totals.length,
    failures: failures.slice(0, 5),
    p50Ms: percentile(totals, 50),
    p99Ms: percentile(totals, 99),
    filledP50Ms: p(filledTimes(measured), 50),
    filledP99Ms: p(filledTimes(measured), 99),
    chainShare: totalSum > 0 ? chainSum / totalSum : 0,
    lpShare: totalSum > 0 ? lpSum / totalSum : 0,
    ferryShare: totalSum > 0 ? ferrySum / totalSum : 0,
    steps: Object.fromEntries(
      STEPS.map((name) => {
        const v = step[name];
        // Deposit and settlement land on the input chain, the fill on the output chain.
        const chainConfirmations = name === 'filled' ? confirmations.output : confirmations.input;
        return [
          name,
          {
            actP50Ms: p(v.act, 50),
            chainP50Ms: p(v.chain, 50),
            observeP50Ms: p(v.observe, 50),
            observeP99Ms: p(v.observe, 99),
            observeAllowanceMs: blockSeconds === null ? null : chainConfirmations * blockSeconds * 1000,
            stepP50Ms: p(v.all, 50),
            stepP99Ms: p(v.all, 99),
          },
        ];
      }),
    ) as Record<Step, StepBreakdown>,
    unseenPending,
    seconds: run.seconds,
    botOutput: failures.length ? botLog.slice(-600) : '',
  };
}

/** A one-line summary of the per-step breakdown, for the report's notes. */
export function describeSteps(r: SettlementResult): string {
  return STEPS.map((name) => {
    const s = r.steps[name];
    return `→${name} p50 ${s.stepP50Ms} ms (actor ${s.actP50Ms}, chain ${s.chainP50Ms}, Ferry observes ${s.observeP50Ms}; observe p99 ${s.observeP99Ms})`;
  }).join('; ');
}
