import { publicQuoteRequestView, publicQuoteView } from '../domain/public-views.ts';
import { deleteIdempotencyKeysBefore } from '../store/idempotency-store.ts';
import { expireDueQuoteRequests, findQuoteRequest } from '../store/quote-requests-store.ts';
import { expireDueQuotes } from '../store/quotes-store.ts';
import { deleteExpiredNonces } from '../store/sessions-store.ts';
import type { ServiceDeps } from './service-deps.ts';

const BATCH = 500;
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Writes down what the clock already decided: open requests and active quotes past their time become
 * `expired`, each with its event. Readers never wait for it (they judge expiry on the clock themselves).
 */
export function createExpirySweeper({ database, clock, events, log, config }: ServiceDeps) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  async function sweepOnce(): Promise<number> {
    const now = clock.now();
    const count = await database.transaction(async (trx) => {
      // Both updates before any event append: append takes the event-ordering lock (see event-log.ts).
      const requests = await expireDueQuoteRequests(trx, now, BATCH);
      const quotes = await expireDueQuotes(trx, now, BATCH);
      for (const qr of requests) {
        await events.append(trx, {
          type: 'quoteRequest.expired',
          occurredAt: now,
          data: publicQuoteRequestView(qr),
          accountIds: [qr.accountId],
        });
      }
      for (const quote of quotes) {
        const request = await findQuoteRequest(trx, quote.quoteRequestId);
        if (!request) continue;
        await events.append(trx, {
          type: 'quote.expired',
          occurredAt: now,
          data: publicQuoteView(quote, request, now),
          accountIds: [quote.liquidityProviderId, request.accountId],
        });
      }
      return requests.length + quotes.length;
    });
    await deleteIdempotencyKeysBefore(database.db, new Date(now.getTime() - IDEMPOTENCY_TTL_MS));
    // Used nonces are deleted as they are used; unused ones go here, so GET /auth/nonce cannot grow the table.
    await deleteExpiredNonces(database.db, now);
    if (count > 0) events.committed();
    return count;
  }

  return {
    /** One pass; tests call it after moving their clock. */
    sweep(): Promise<number> {
      running ??= sweepOnce().finally(() => {
        running = null;
      });
      return running;
    },
    start() {
      timer = setInterval(() => {
        this.sweep().catch((error: unknown) => log.warn({ err: error }, 'expiry sweep failed; will retry'));
      }, config.expirySweepMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}

export type ExpirySweeper = ReturnType<typeof createExpirySweeper>;
