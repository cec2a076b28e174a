import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOrderRow } from '../../../test/support/order-rows.ts';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { FerryDatabase } from '../engine/database.ts';
import { findServingAction } from './shared-actions-store.ts';

const backend = process.env.FERRY_TEST_PG ? 'PostgreSQL' : 'SQLite';

describe(`the action serving an order on ${backend}`, () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  let clock = Date.parse('2026-11-22T12:00:00.000Z');

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(async () => {
    await close?.();
  });

  async function recordProve(orderId: string, seq: number, linked: readonly string[] = []) {
    clock += 1000;
    await database.db
      .insertInto('chain_actions')
      .values({
        id: `act_${orderId}_prove_${seq}`,
        order_id: orderId,
        kind: 'prove',
        seq,
        chain: 'b',
        from_address: `0x${'00'.repeat(20)}`,
        nonce: seq,
        tx_hash: `0x${orderId}prove${seq}`,
        raw_tx: '0x',
        status: 'confirmed',
        created_at: clock,
        updated_at: clock,
        waiting_since: null,
        fee_capped_at: null,
      })
      .execute();
    for (const id of linked) {
      await database.db
        .insertInto('chain_action_orders')
        .values({ action_order_id: orderId, kind: 'prove', seq, order_id: id })
        .execute();
    }
  }

  it("is the order's own newest or a linked one, whichever was recorded last", async () => {
    const order = await seedOrderRow(database, 'filled');
    const other = await seedOrderRow(database, 'filled');
    const stranger = await seedOrderRow(database, 'filled');
    expect(await findServingAction(database.db, order, 'prove')).toBeNull();
    await recordProve(order, 0);
    await recordProve(stranger, 0);
    expect((await findServingAction(database.db, order, 'prove'))?.id).toBe(`act_${order}_prove_0`);
    await recordProve(other, 0, [order]);
    expect((await findServingAction(database.db, order, 'prove'))?.id).toBe(`act_${other}_prove_0`);
    await recordProve(order, 1);
    expect((await findServingAction(database.db, order, 'prove'))?.id).toBe(`act_${order}_prove_1`);
    // Another order's action serves only the orders linked to it.
    expect((await findServingAction(database.db, stranger, 'prove'))?.id).toBe(`act_${stranger}_prove_0`);
    expect(await findServingAction(database.db, order, 'settle')).toBeNull();
  });
});
