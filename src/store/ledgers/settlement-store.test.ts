import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOrderRow } from '../../../test/support/order-rows.ts';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { FerryDatabase } from '../engine/database.ts';
import { findOrder } from '../tables/orders-store.ts';
import {
  mayRecord,
  moneyMoverRevertTimes,
  noteOrderProblem,
  revertedActionCounts,
  transitionOrder,
} from './settlement-store.ts';
import { messageOrdersToServe } from './shared-actions-store.ts';

const backend = process.env.FERRY_TEST_PG ? 'PostgreSQL' : 'SQLite';

/** transitionOrder: the one writer of an order's status, its timestamps, and the refund-beats-fill condition. */
describe(`order transitions on ${backend}`, () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  const now = new Date('2026-11-22T12:00:00.000Z');

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(async () => {
    await close?.();
  });

  async function recordAction(orderId: string, kind: string, status: string, seq = 0) {
    await database.db
      .insertInto('chain_actions')
      .values({
        id: `act_${orderId}_${kind}_${seq}`,
        order_id: orderId,
        kind,
        seq,
        chain: 'a',
        from_address: `0x${'00'.repeat(20)}`,
        nonce: seq,
        tx_hash: `0x${orderId}${kind}${seq}`,
        raw_tx: '0x',
        status,
        created_at: now.getTime(),
        updated_at: now.getTime(),
        waiting_since: null,
        fee_capped_at: null,
      })
      .execute();
  }

  it('completing stamps completedAt and clears the reason a settle kept reverting', async () => {
    const id = await seedOrderRow(database, 'filled');
    expect(await noteOrderProblem(database.db, id, 'filled', 'settle reverted', now, 'test')).toBe(true);
    const moved = await transitionOrder(
      database.db,
      id,
      'filled',
      { status: 'completed', settlementTxHash: '0xabc' },
      now,
      'test',
    );
    expect(moved).toBe(true);
    expect(await findOrder(database.db, id)).toMatchObject({
      status: 'completed',
      completedAt: now,
      failureReason: null,
      settlementTxHash: '0xabc',
      updatedBy: 'test',
    });
  });

  it('moves only from the status it names, and only forward', async () => {
    const id = await seedOrderRow(database, 'deposited');
    expect(await transitionOrder(database.db, id, 'created', { status: 'deposited' }, now, 'test')).toBe(
      false,
    );
    await expect(
      transitionOrder(database.db, id, 'deposited', { status: 'created' }, now, 'test'),
    ).rejects.toThrow(/no transition deposited → created/);
    const refunded = { status: 'refunded' as const, failureReason: 'not filled' };
    expect(await transitionOrder(database.db, id, 'deposited', refunded, now, 'test')).toBe(true);
    expect(await findOrder(database.db, id)).toMatchObject({ status: 'refunded', completedAt: null });
  });

  it('a refund written down beats a fill seen later: the move to filled does not happen', async () => {
    const id = await seedOrderRow(database, 'deposited');
    await recordAction(id, 'refund', 'recorded');
    const filled = { status: 'filled' as const, dstChainTxHash: '0xf1' };
    expect(await transitionOrder(database.db, id, 'deposited', filled, now, 'test')).toBe(false);
    expect((await findOrder(database.db, id))?.status).toBe('deposited');
    // Other moves are not held back by it: the chain's refund is followed.
    expect(await transitionOrder(database.db, id, 'deposited', { status: 'refunded' }, now, 'test')).toBe(
      true,
    );
  });

  it('a refund spent without effect no longer holds the fill back', async () => {
    const id = await seedOrderRow(database, 'deposited');
    await recordAction(id, 'refund', 'reverted');
    const filled = { status: 'filled' as const, dstChainTxHash: '0xf1' };
    expect(await transitionOrder(database.db, id, 'deposited', filled, now, 'test')).toBe(true);
    expect(await findOrder(database.db, id)).toMatchObject({ status: 'filled', dstChainTxHash: '0xf1' });
  });

  it('counts reverts on chain per order and kind, and refuses to record a third try after two', async () => {
    const id = await seedOrderRow(database, 'created');
    await recordAction(id, 'deposit', 'reverted', 0);
    await recordAction(id, 'deposit', 'cancelled', 1);
    await recordAction(id, 'deposit', 'reverted', 2);
    await recordAction(id, 'refund', 'nonce-conflict', 0);
    expect(await revertedActionCounts(database.db, id)).toEqual({ deposit: 2 });
    const next = { orderId: id, kind: 'deposit' as const, seq: 3, expectStatus: 'created' as const };
    expect(await database.transaction((trx) => mayRecord(trx, database.dialect, next))).toBe(false);

    const other = await seedOrderRow(database, 'created');
    await recordAction(other, 'deposit', 'reverted', 0);
    const retry = { orderId: other, kind: 'deposit' as const, seq: 1, expectStatus: 'created' as const };
    expect(await database.transaction((trx) => mayRecord(trx, database.dialect, retry))).toBe(true);
  });

  it("lists when a money mover's undeposited orders' deposits reverted, newest first, in the window", async () => {
    const id = await seedOrderRow(database, 'created');
    const account = (await findOrder(database.db, id))!.moneyMoverAccountId;
    await recordAction(id, 'deposit', 'reverted', 0);
    await recordAction(id, 'settle', 'reverted', 0);
    await recordAction(id, 'deposit', 'reverted', 1);
    const query = { accountId: account, kinds: ['deposit'], limit: 10 };
    const times = await moneyMoverRevertTimes(database.db, { ...query, since: now.getTime() - 1 });
    expect(times).toEqual([now.getTime(), now.getTime()]);
    expect(await moneyMoverRevertTimes(database.db, { ...query, since: now.getTime() })).toEqual([]);
    expect(await moneyMoverRevertTimes(database.db, { ...query, since: 0, limit: 1 })).toHaveLength(1);
    // Another account's orders are not its.
    const stranger = { ...query, accountId: 'acc_nobody', since: 0 };
    expect(await moneyMoverRevertTimes(database.db, stranger)).toEqual([]);
    // An order deposited anyway (someone else's deposit of the signed order won the race) is not its doing.
    const raced = await seedOrderRow(database, 'deposited');
    await recordAction(raced, 'deposit', 'reverted', 0);
    const racedAccount = (await findOrder(database.db, raced))!.moneyMoverAccountId;
    expect(await moneyMoverRevertTimes(database.db, { ...query, accountId: racedAccount, since: 0 })).toEqual(
      [],
    );
  });

  it('sends a prove again or the next older commit after one that took effect, but never two in flight', async () => {
    const id = await seedOrderRow(database, 'filled');
    const may = (kind: 'prove' | 'commit-gap' | 'commit', seq: number) =>
      mayRecord(database.db, database.dialect, { orderId: id, kind, seq, expectStatus: 'filled' });
    for (const kind of ['prove', 'commit-gap'] as const) {
      await recordAction(id, kind, 'recorded', 0);
      expect(await may(kind, 1)).toBe(false);
      await database.db
        .updateTable('chain_actions')
        .set({ status: 'confirmed' })
        .where('id', '=', `act_${id}_${kind}_0`)
        .execute();
      expect(await may(kind, 1)).toBe(true);
      // Only the next seq: a writer that read an older one loses.
      expect(await may(kind, 2)).toBe(false);
    }
    // Any other kind goes again only after one spent without effect.
    await recordAction(id, 'commit', 'confirmed', 0);
    expect(await may('commit', 1)).toBe(false);
  });

  it('refuses a refund while a prove of another order that serves this one too may still take effect', async () => {
    const leader = await seedOrderRow(database, 'filled');
    const served = await seedOrderRow(database, 'filled');
    const mayRefund = () =>
      mayRecord(database.db, database.dialect, {
        orderId: served,
        kind: 'refund',
        seq: 0,
        expectStatus: 'filled',
      });
    expect(await mayRefund()).toBe(true);
    await recordAction(leader, 'prove', 'recorded', 0);
    await database.db
      .insertInto('chain_action_orders')
      .values({ action_order_id: leader, kind: 'prove', seq: 0, order_id: served })
      .execute();
    expect(await mayRefund()).toBe(false);
    const setProve = (status: string) =>
      database.db
        .updateTable('chain_actions')
        .set({ status })
        .where('id', '=', `act_${leader}_prove_0`)
        .execute();
    await setProve('confirmed');
    expect(await mayRefund()).toBe(false);
    // Spent without effect: it no longer stands in the refund's way.
    await setProve('reverted');
    expect(await mayRefund()).toBe(true);
  });

  it("finds the other orders of a message one commit would serve: the message's, in the status, not yet served", async () => {
    const mine = await seedOrderRow(database, 'filled');
    const theirs = await seedOrderRow(database, 'filled');
    const moved = await seedOrderRow(database, 'completed');
    const elsewhere = await seedOrderRow(database, 'filled');
    const message = `0x${'ab'.repeat(32)}`;
    // The message's ProofSent rows name its orders by hash, whether or not the worker wrote it on them yet.
    const sent = async (id: string, guid: string, logIndex: number) => {
      const { blockchain_order_id } = await database.db
        .selectFrom('orders')
        .select('blockchain_order_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      await database.db
        .insertInto('proof_sent')
        .values({
          chain: 'b',
          tx_hash: `0x${guid.slice(2, 6)}`,
          log_index: logIndex,
          order_hash: blockchain_order_id,
          guid,
          dst_eid: 1,
          block_number: 1,
          block_timestamp: 1,
        })
        .execute();
    };
    for (const [i, id] of [mine, theirs, moved].entries()) await sent(id, message, i);
    await sent(elsewhere, `0x${'cd'.repeat(32)}`, 0);
    // Proven since by a newer message of its own: not this message's to follow.
    const reproved = await seedOrderRow(database, 'filled');
    await sent(reproved, message, 3);
    await database.db
      .updateTable('orders')
      .set({ settlement_message_id: `0x${'ef'.repeat(32)}` })
      .where('id', '=', reproved)
      .execute();
    const toServe = (kind: 'commit' | 'execute') =>
      messageOrdersToServe(database.db, { messageId: message, leader: mine, kind, status: 'filled' });
    expect(await toServe('commit')).toEqual([theirs]);
    // Spent without effect: it still needs one.
    await recordAction(theirs, 'commit', 'reverted', 0);
    expect(await toServe('commit')).toEqual([theirs]);
    // Its own commit in flight serves it.
    await recordAction(theirs, 'commit', 'recorded', 1);
    expect(await toServe('commit')).toEqual([]);
    expect(await toServe('execute')).toEqual([theirs]);
  });
});
