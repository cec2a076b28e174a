import { fieldError } from '../domain/app-error.ts';
import type { NewEvent } from '../domain/events.ts';
import { covers } from '../domain/lp-coverage.ts';
import { publicQuoteView } from '../domain/public-views.ts';
import type { Quote, QuoteRequest } from '../domain/records.ts';
import { UncoveredQuoteError, UniqueViolationError } from '../store/engine/store-errors.ts';
import { coverCheck, lockedLpCommitted, lpCommitted } from '../store/tables/lp-commitments-store.ts';
import {
  coveredQuotesInsert,
  expireStaleQuoteOfProvider,
  insertQuotes,
} from '../store/tables/quotes-store.ts';
import { createKeyedQueue, type Pending as KeyedPending } from './keyed-queue.ts';
import type { CoverageInput, QuoteLimits } from './quote-limits.ts';
import type { ServiceDeps } from './service-deps.ts';

/** A quote ready to be written: built, priced and checked, but for its coverage. */
export interface QuoteToWrite {
  readonly quote: Quote;
  readonly request: QuoteRequest;
  readonly coverage: CoverageInput;
  readonly now: Date;
}

/** Writes new quotes, each with its coverage check and its event. */
export interface QuoteWriter {
  write(item: QuoteToWrite): Promise<void>;
}

/** At most this many quotes of one LP on one chain and token are judged and written together. */
const MAX_BATCH = 64;

type Pending = KeyedPending<QuoteToWrite, void>;

function createdEvent({ quote, request, now, coverage }: QuoteToWrite): NewEvent {
  const accountIds = [coverage.lpAccountId, request.accountId];
  return { type: 'quote.created', occurredAt: now, data: publicQuoteView(quote, request, now), accountIds };
}

/** Maps the store's refusals to the API's errors. */
function refusal(limits: QuoteLimits, item: QuoteToWrite, error: unknown): unknown {
  if (error instanceof UncoveredQuoteError) return limits.uncovered(item.coverage, error.promised);
  if (error instanceof UniqueViolationError) {
    return fieldError(
      'CONFLICT',
      'body.quoteRequestId',
      'this liquidity provider already has an active quote on the request; it may quote again once that one ends',
      { cause: error },
    );
  }
  return error;
}

/**
 * Each quote in arrival order on top of `promised` and the quotes covered before it: covered while its fill
 * address's balance (`held`) covers that, refused otherwise.
 */
function judge(batch: readonly Pending[], promised: bigint) {
  const covered: Pending[] = [];
  const refused = new Map<Pending, UncoveredQuoteError>();
  let total = 0n;
  let minHeld: bigint | null = null;
  for (const pending of batch) {
    const { held, outputAmount } = pending.item.coverage;
    if (!covers(held, promised + total, outputAmount))
      refused.set(pending, new UncoveredQuoteError(promised + total));
    else {
      total += outputAmount;
      minHeld = minHeld === null || held < minHeld ? held : minHeld;
      covered.push(pending);
    }
  }
  return { covered, refused, total, minHeld: minHeld ?? 0n };
}

/** Settles each quote of the batch: refused with its promised sum, or written. */
function settle(
  limits: QuoteLimits,
  batch: readonly Pending[],
  refused: ReadonlyMap<Pending, UncoveredQuoteError>,
): void {
  for (const p of batch) {
    const uncovered = refused.get(p);
    if (uncovered) p.reject(refusal(limits, p.item, uncovered));
    else p.resolve();
  }
}

/** Expires the LP's quotes on the request that are past their end (with their events); false when none were. */
async function expireStale(
  database: ServiceDeps['database'],
  { request, coverage, now }: QuoteToWrite,
): Promise<boolean> {
  return database.transaction(async (trx, uow) => {
    const stale = await expireStaleQuoteOfProvider(trx, request.id, coverage.lpAccountId, now);
    for (const old of stale) {
      uow.emit({
        type: 'quote.expired',
        occurredAt: now,
        data: publicQuoteView(old, request, now),
        accountIds: [coverage.lpAccountId, request.accountId],
      });
    }
    return stale.length > 0;
  });
}

/**
 * Quotes of one LP on one chain and token are judged one after another against one balance, under a lock held
 * until their commit (lp-commitments-store.ts coverCheck). Those that arrive while one of the key is being written
 * go together (keyed-queue.ts): one lock, one read of the promises, each quote judged in arrival order on top of
 * the ones before it, one insert, one commit. A quote alone (the usual case when the LP is not busy) is one
 * statement.
 */
export function createQuoteWriter(
  deps: Pick<ServiceDeps, 'database'> & { readonly limits: QuoteLimits },
): QuoteWriter {
  const { database, limits } = deps;

  /**
   * One quote as one statement (database.write). An LP's quote past its end may still read `active` until the
   * sweep writes it down, and the one-active-quote index counts stored status: when it blocks the insert, the
   * stale quote is expired (with its event) and the insert tried once more.
   */
  async function writeOne(item: QuoteToWrite): Promise<void> {
    const write = () =>
      database.write(
        coveredQuotesInsert([item.quote], coverCheck(database.dialect, limits.coverage(item.coverage))),
        [createdEvent(item)],
      );
    await write()
      .catch(async (error: unknown) => {
        if (!(error instanceof UniqueViolationError) || !(await expireStale(database, item))) throw error;
        await write();
      })
      .catch((error: unknown) => {
        throw refusal(limits, item, error);
      });
  }

  /**
   * Several quotes of one key as one statement: judged in arrival order on the promises read just before (no
   * lock), then inserted with their events where the lock's own check (coverCheck) finds that the balance still
   * covers all of them together: promises made meanwhile elsewhere (another instance) make it fail, and the batch
   * is judged again under the lock (writeLockedBatch). Each quote settles with its own outcome.
   */
  async function writeBatch(batch: readonly Pending[]): Promise<void> {
    const key = limits.coverage((batch[0] as Pending).item.coverage);
    const judged = judge(batch, await lpCommitted(database.db, database.dialect, key));
    if (judged.covered.length > 0) {
      const check = coverCheck(database.dialect, { ...key, amount: judged.total, held: judged.minHeld });
      try {
        await database.write(
          coveredQuotesInsert(
            judged.covered.map((p) => p.item.quote),
            check,
          ),
          judged.covered.map((p) => createdEvent(p.item)),
        );
      } catch (error) {
        if (error instanceof UncoveredQuoteError) return writeLockedBatch(batch);
        if (error instanceof UniqueViolationError) return writeOneByOne(batch);
        throw error;
      }
    }
    settle(limits, batch, judged.refused);
  }

  /** The batch in one transaction, judged under the lock; any unique violation sends it back one by one. */
  async function writeLockedBatch(batch: readonly Pending[]): Promise<void> {
    let refused = new Map<Pending, UncoveredQuoteError>();
    try {
      await database.transaction(async (trx, uow) => {
        const key = limits.coverage((batch[0] as Pending).item.coverage);
        const judged = judge(batch, await lockedLpCommitted(trx, database.dialect, key));
        refused = judged.refused;
        await insertQuotes(
          trx,
          judged.covered.map((p) => p.item.quote),
        );
        for (const p of judged.covered) uow.emit(createdEvent(p.item));
      });
    } catch (error) {
      if (error instanceof UniqueViolationError) return writeOneByOne(batch);
      throw error;
    }
    settle(limits, batch, refused);
  }

  async function writeOneByOne(batch: readonly Pending[]): Promise<void> {
    for (const p of batch) await writeOne(p.item).then(p.resolve, p.reject);
  }

  const enqueue = createKeyedQueue<QuoteToWrite, void>(MAX_BATCH, async (batch) => {
    const only = batch.length === 1 ? (batch[0] as Pending) : null;
    await (only ? writeOne(only.item).then(only.resolve, only.reject) : writeBatch(batch));
  });

  return {
    write(item) {
      const { request, lpAccountId } = item.coverage;
      return enqueue(`${lpAccountId}\n${request.outputChain}\n${request.outputToken}`, item);
    },
  };
}
