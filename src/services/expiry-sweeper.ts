import { promiseBounds } from '../domain/lp-coverage.ts';
import { publicQuoteRequestView, publicQuoteView } from '../domain/public-views.ts';
import { createPeriodicJob } from '../process/periodic-job.ts';
import { deleteIdempotencyKeysBefore } from '../store/tables/idempotency-store.ts';
import { deleteLapsedPromises } from '../store/tables/lp-commitments-store.ts';
import {
  deleteSpentOffererTotals,
  expireDueQuoteRequests,
  findQuoteRequests,
} from '../store/tables/quote-requests-store.ts';
import { expireDueQuotes } from '../store/tables/quotes-store.ts';
import { deleteExpiredNonces, deleteExpiredSessions } from '../store/tables/sessions-store.ts';
import type { ServiceDeps } from './service-deps.ts';

const BATCH = 500;
/** Up to 5,000 requests and 5,000 quotes per pass (one pass a second by default). */
const MAX_BATCHES_PER_PASS = 10;

export interface ExpirySweeper {
  /** One pass; resolves to how many requests and quotes it expired. Tests call it after moving their clock. */
  sweep(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Writes down what the clock already decided: open requests and active quotes past their time become
 * `expired`, each with its event. Readers never wait for it (they judge expiry on the clock themselves).
 */
export function createExpirySweeper({ database, clock, log, config }: ServiceDeps): ExpirySweeper {
  /** One batch of each kind, with their events, in one transaction; returns how many were expired. */
  async function expireBatch(now: Date): Promise<{ requests: number; quotes: number }> {
    return database.transaction(async (trx, uow) => {
      const requests = await expireDueQuoteRequests(trx, now, BATCH);
      const quotes = await expireDueQuotes(trx, now, BATCH);
      for (const qr of requests) {
        uow.emit({
          type: 'quoteRequest.expired',
          occurredAt: now,
          data: publicQuoteRequestView(qr),
          accountIds: [qr.accountId],
        });
      }
      const owners = await findQuoteRequests(
        trx,
        quotes.map((quote) => quote.quoteRequestId),
      );
      for (const quote of quotes) {
        const request = owners.get(quote.quoteRequestId);
        if (!request) continue;
        uow.emit({
          type: 'quote.expired',
          occurredAt: now,
          data: publicQuoteView(quote, request, now),
          accountIds: [quote.liquidityProviderId, request.accountId],
        });
      }
      return { requests: requests.length, quotes: quotes.length };
    });
  }

  async function sweepOnce(): Promise<number> {
    const now = clock.now();
    let count = 0;
    // A backlog (a burst of requests that all expire together) drains in several short transactions rather than
    // one long one, so writes of the API interleave with it instead of waiting behind it.
    for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
      const done = await expireBatch(now);
      count += done.requests + done.quotes;
      if (done.requests < BATCH && done.quotes < BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await deleteIdempotencyKeysBefore(
      database.db,
      new Date(now.getTime() - config.idempotencyTtlSeconds * 1000),
    );
    // Used nonces are deleted as they are used; unused ones go here, so GET /auth/nonce cannot grow the table.
    await deleteExpiredNonces(database.db, now);
    // An expired session can never authenticate again; without this every sign-in would leave a row forever.
    await deleteExpiredSessions(database.db, now);
    // LP promise totals that lapsed by time were never written down as such: their rows go here.
    await deleteLapsedPromises(database.db, database.dialect, promiseBounds(now, config.openWindowSeconds));
    // The offerers' input totals come back to zero as this sweep writes their requests down; spent rows go here.
    await deleteSpentOffererTotals(database.db, now);
    return count;
  }

  const job = createPeriodicJob({
    name: 'expiry sweep',
    intervalMs: config.expirySweepMs,
    run: sweepOnce,
    log,
  });
  return {
    /** One pass that starts now; tests call it after moving their clock. */
    sweep: job.runAfter,
    start: job.start,
    stop: job.stop,
  };
}
