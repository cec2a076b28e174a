import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { NewEvent } from '../../domain/events.ts';
import { FerryError } from '../../domain/ferry-error.ts';
import type { QuoteRequest } from '../../domain/records.ts';
import { insertAccount } from '../tables/accounts-store.ts';
import {
  findQuoteRequest,
  insertCoveredQuoteRequests,
  quoteRequestInsert,
} from '../tables/quote-requests-store.ts';
import type { FerryDatabase } from './database.ts';
import { latestEventId, readFinalEventsAfter } from './events-store.ts';
import { UniqueViolationError } from './store-errors.ts';

const backend = process.env.FERRY_TEST_PG ? 'PostgreSQL' : 'SQLite';

/** database.write and writeIfInserted: one row change and its events as one unit (on PostgreSQL a single statement). */
describe(`database.write on ${backend}`, () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  const now = new Date('2026-11-22T12:00:00.000Z');
  const request = (id: string): QuoteRequest => ({
    id,
    accountId: 'acc_uow',
    offerer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    inputToken: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    outputToken: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    inputAmount: 123_000_000n,
    inputChain: 'alpha',
    outputChain: 'beta',
    status: 'open',
    acceptedQuoteId: null,
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + 120_000),
  });
  const event = (id: string): NewEvent => ({
    type: 'quoteRequest.created',
    occurredAt: now,
    data: { id },
    accountIds: ['acc_uow'],
  });

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
    await insertAccount(database.db, {
      id: 'acc_uow',
      type: 'moneyMover',
      name: 'uow',
      address: null,
      walletSignIn: false,
      createdAt: now,
    });
  });
  afterAll(() => close());

  it('commits the row and its events together, then tells the commit listeners once', async () => {
    let heard = 0;
    const stop = database.onCommitted(() => heard++);
    const before = await latestEventId(database.db);
    await database.write(quoteRequestInsert(request('qr_uow_1')), [event('qr_uow_1'), event('qr_uow_1b')]);
    stop();

    expect((await findQuoteRequest(database.db, 'qr_uow_1'))?.inputAmount).toBe(123_000_000n);
    const { events } = await readFinalEventsAfter(database.db, before, 10);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['quoteRequest.created', { id: 'qr_uow_1' }],
      ['quoteRequest.created', { id: 'qr_uow_1b' }],
    ]);
    expect(events[1]?.id).toBeGreaterThan(events[0]?.id ?? Number.POSITIVE_INFINITY);
    expect(heard).toBe(1);
  });

  it('a change that fails writes no event, and its driver error comes out typed', async () => {
    const before = await latestEventId(database.db);
    const again = database.write(quoteRequestInsert(request('qr_uow_1')), [event('duplicate')]);
    await expect(again).rejects.toBeInstanceOf(UniqueViolationError);
    // One of Ferry's errors: not worth retrying, the driver's own error kept as its cause.
    const typed = (await again.catch((error: unknown) => error)) as UniqueViolationError;
    expect(typed).toBeInstanceOf(FerryError);
    expect(typed.retryable).toBe(false);
    expect((typed.cause as { code?: unknown }).code).toMatch(
      /^(23505|SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY))$/,
    );
    expect((await readFinalEventsAfter(database.db, before, 10)).events).toEqual([]);
  });

  it('covered requests: inserted with their events when the balance covers the open ones too, else none', async () => {
    // Its own offerer: only qr_uow_1 (123 tokens) of the earlier tests is open for this one.
    const before = await latestEventId(database.db);
    const write = (balance: bigint, ...qrs: QuoteRequest[]) =>
      insertCoveredQuoteRequests(database, {
        requests: qrs.map((qr) => ({ qr, event: event(qr.id) })),
        balance,
      });
    const fits = { ...request('qr_uow_2'), inputAmount: 77_000_000n };
    expect(await write(200_000_000n, fits)).toBeNull();
    const short = { ...request('qr_uow_3'), inputAmount: 1n };
    expect(await write(200_000_000n, short)).toBe(200_000_000n);
    expect(await findQuoteRequest(database.db, 'qr_uow_3')).toBeNull();
    // Together: all of them or none (the second pair is one base unit over).
    const pair = [
      { ...request('qr_uow_4'), inputAmount: 20n },
      { ...request('qr_uow_5'), inputAmount: 30n },
    ];
    expect(await write(200_000_050n, ...pair)).toBeNull();
    const over = [
      { ...request('qr_uow_6'), inputAmount: 1n },
      { ...request('qr_uow_7'), inputAmount: 1n },
    ];
    expect(await write(200_000_051n, ...over)).toBe(200_000_050n);
    expect(await findQuoteRequest(database.db, 'qr_uow_6')).toBeNull();
    const { events } = await readFinalEventsAfter(database.db, before, 10);
    expect(events.map((e) => e.data)).toEqual([{ id: 'qr_uow_2' }, { id: 'qr_uow_4' }, { id: 'qr_uow_5' }]);
  });
});
