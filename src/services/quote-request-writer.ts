import type { NewEvent } from '../domain/events.ts';
import type { QuoteRequest } from '../domain/records.ts';
import { insertCoveredQuoteRequests, openRequestedInput } from '../store/tables/quote-requests-store.ts';
import { createKeyedQueue, type Pending } from './keyed-queue.ts';
import type { ServiceDeps } from './service-deps.ts';

/** A new request, its event and the offerer's balance reading that must cover it with the open ones. */
export interface RequestToWrite {
  readonly qr: QuoteRequest;
  readonly event: NewEvent;
  readonly balance: bigint;
}

/**
 * Writes new quote requests: inserted with their event (null) when the balance covers them on top of the
 * offerer's open requests in that token, otherwise what those ask for.
 */
export type QuoteRequestWriter = (request: RequestToWrite) => Promise<bigint | null>;

/** At most this many requests of one offerer in one token are judged and written together. */
const MAX_BATCH = 64;

type Waiting = Pending<RequestToWrite, bigint | null>;

/**
 * An offerer's requests in one token are judged one after another against its balance, under a lock held to their
 * commit (quote-requests-store.ts insertCoveredQuoteRequests). Those that arrive while one of the offerer's is
 * being written go together (keyed-queue.ts): judged in arrival order on its open requests read just before (no
 * lock), the covered ones inserted in one statement whose own check under the lock finds that the balance still
 * covers them all. When it does not (requests written meanwhile by another instance), and for each request the
 * first judgement refused, the request is written alone, judged under the lock: every answer comes from a
 * judgement under the lock.
 */
export function createQuoteRequestWriter({ database }: Pick<ServiceDeps, 'database'>): QuoteRequestWriter {
  const one = (w: Waiting) =>
    insertCoveredQuoteRequests(database, { requests: [w.item], balance: w.item.balance }).then(
      w.resolve,
      w.reject,
    );

  async function together(batch: readonly Waiting[]): Promise<void> {
    const first = (batch[0] as Waiting).item.qr;
    const funds = { chain: first.inputChain, token: first.inputToken, offerer: first.offerer };
    const open = await openRequestedInput(database.db, funds, first.createdAt);
    const covered: Waiting[] = [];
    const alone: Waiting[] = [];
    let total = 0n;
    let balance: bigint | null = null;
    for (const w of batch) {
      if (open + total + w.item.qr.inputAmount > w.item.balance) alone.push(w);
      else {
        covered.push(w);
        total += w.item.qr.inputAmount;
        balance = balance === null || w.item.balance < balance ? w.item.balance : balance;
      }
    }
    if (covered.length > 0 && balance !== null) {
      const refused = await insertCoveredQuoteRequests(database, {
        requests: covered.map((w) => w.item),
        balance,
      });
      if (refused === null) for (const w of covered) w.resolve(null);
      else alone.splice(0, alone.length, ...batch);
    }
    for (const w of alone) await one(w);
  }

  const enqueue = createKeyedQueue<RequestToWrite, bigint | null>(MAX_BATCH, async (batch) => {
    await (batch.length === 1 ? one(batch[0] as Waiting) : together(batch));
  });
  return (request) => {
    const { offerer, inputChain, inputToken } = request.qr;
    return enqueue(`${offerer.toLowerCase()}\n${inputChain}\n${inputToken.toLowerCase()}`, request);
  };
}
