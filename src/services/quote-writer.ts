import { fieldError } from '../domain/app-error.ts';
import type { NewEvent } from '../domain/events.ts';
import { publicQuoteView } from '../domain/public-views.ts';
import type { Quote, QuoteRequest } from '../domain/records.ts';
import { coverCheck, lockedLpCommitted } from '../store/lp-commitments-store.ts';
import { coveredQuoteInsert, expireStaleQuoteOfProvider, insertQuotes } from '../store/quotes-store.ts';
import { UncoveredQuoteError, UniqueViolationError } from '../store/store-errors.ts';
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

interface Pending {
  readonly item: QuoteToWrite;
  resolve(): void;
  reject(error: unknown): void;
}

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
 * Quotes of one LP on one chain and token are judged one after another against one balance, under a lock held
 * until their commit (lp-commitments-store.ts coverCheck): one at a time, an LP could quote no faster than one
 * commit after another. So while one write of a (LP, chain, token) is in flight, the next quotes of that key wait
 * here and then go together: one lock, one read of the promises, each quote judged in arrival order on top of the
 * ones before it, one insert, one commit. A quote alone (the usual case when the LP is not busy) is one statement.
 */
export function createQuoteWriter(
  deps: Pick<ServiceDeps, 'database'> & { readonly limits: QuoteLimits },
): QuoteWriter {
  const { database, limits } = deps;
  const queues = new Map<string, Pending[]>();

  /**
   * One quote as one statement (database.write). An LP's quote past its end may still read `active` until the
   * sweep writes it down, and the one-active-quote index counts stored status: when it blocks the insert, the
   * stale quote is expired (with its event) and the insert tried once more.
   */
  async function writeOne(item: QuoteToWrite): Promise<void> {
    const write = () =>
      database.write(
        coveredQuoteInsert(item.quote, coverCheck(database.dialect, limits.coverage(item.coverage))),
        [createdEvent(item)],
      );
    await write()
      .catch(async (error: unknown) => {
        if (!(error instanceof UniqueViolationError) || !(await expireStale(item))) throw error;
        await write();
      })
      .catch((error: unknown) => {
        throw refusal(limits, item, error);
      });
  }

  /** Expires the LP's quotes on the request that are past their end (with their events); false when none were. */
  async function expireStale({ request, coverage, now }: QuoteToWrite): Promise<boolean> {
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
   * Several quotes of one key in one transaction; each settles with its own outcome. Any unique violation (a second
   * quote of the LP on a request, a stale one to expire first) sends the batch back one by one, where it is judged.
   */
  async function writeBatch(batch: readonly Pending[]): Promise<void> {
    const refused = new Map<Pending, UncoveredQuoteError>();
    try {
      await database.transaction(async (trx, uow) => {
        const key = limits.coverage((batch[0] as Pending).item.coverage);
        let promised = await lockedLpCommitted(trx, database.dialect, key);
        const covered: Pending[] = [];
        for (const pending of batch) {
          const { held, outputAmount } = pending.item.coverage;
          if (promised + outputAmount > held) refused.set(pending, new UncoveredQuoteError(promised));
          else {
            promised += outputAmount;
            covered.push(pending);
          }
        }
        await insertQuotes(
          trx,
          covered.map((p) => p.item.quote),
        );
        for (const p of covered) uow.emit(createdEvent(p.item));
      });
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) {
        for (const p of batch) p.reject(error);
        return;
      }
      for (const p of batch) await writeOne(p.item).then(p.resolve, p.reject);
      return;
    }
    for (const p of batch) {
      const uncovered = refused.get(p);
      if (uncovered) p.reject(refusal(limits, p.item, uncovered));
      else p.resolve();
    }
  }

  async function drain(key: string, queue: Pending[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      const only = batch.length === 1 ? (batch[0] as Pending) : null;
      await (only ? writeOne(only.item).then(only.resolve, only.reject) : writeBatch(batch)).catch(
        (error: unknown) => {
          for (const p of batch) p.reject(error);
        },
      );
    }
    queues.delete(key);
  }

  return {
    write(item) {
      const { request, lpAccountId } = item.coverage;
      const key = `${lpAccountId}\n${request.outputChain}\n${request.outputToken}`;
      return new Promise<void>((resolve, reject) => {
        const queue = queues.get(key);
        if (queue) {
          queue.push({ item, resolve, reject });
          return;
        }
        const fresh: Pending[] = [{ item, resolve, reject }];
        queues.set(key, fresh);
        void drain(key, fresh);
      });
    },
  };
}
