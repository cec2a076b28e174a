import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOrderRow } from '../../../test/support/order-rows.ts';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { FerryDatabase } from '../engine/database.ts';
import { orderStats } from './order-stats-store.ts';
import { listPublicOrders } from './orders-store.ts';

const DAY = 86_400_000;
const day0 = 20_000 * DAY; // 2024-10-04, a UTC midnight
const tokenA = '0x00000000000000000000000000000000000000a1';
const tokenB = '0x00000000000000000000000000000000000000b2';
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

describe('order stats and search in SQL (this backend)', () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;

  async function order(fields: {
    status: string;
    amount: string;
    token?: string;
    chains?: [string, string];
    createdAt: number;
    completedAt?: number;
  }) {
    const id = await seedOrderRow(database, fields.status);
    await database.db
      .updateTable('orders')
      .set({
        input_amount: fields.amount,
        input_token: fields.token ?? tokenA,
        input_chain: fields.chains?.[0] ?? 'a',
        output_chain: fields.chains?.[1] ?? 'b',
        created_at: fields.createdAt,
        completed_at: fields.completedAt ?? null,
      })
      .where('id', '=', id)
      .execute();
    return id;
  }

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(async () => close?.());

  it('sums amounts of up to 78 digits exactly, per day, pair and token, and buckets fill times', async () => {
    const huge = `${'9'.repeat(77)}1`; // above 2^255: far beyond 64-bit and float precision
    const at = (d: number, s: number) => day0 + d * DAY + s * 1000;
    await order({ status: 'completed', amount: huge, createdAt: at(0, 0), completedAt: at(0, 10) });
    await order({
      status: 'completed',
      amount: '123456789012345',
      createdAt: at(0, 100),
      completedAt: at(0, 145),
    });
    await order({
      status: 'completed',
      amount: '5',
      token: tokenB,
      createdAt: at(0, 200),
      completedAt: at(0, 300),
    });
    await order({
      status: 'completed',
      amount: '7',
      chains: ['b', 'a'],
      createdAt: at(1, 0),
      completedAt: at(1, 4000),
    });
    // Outside the window, or not completed: no volume, no fill time.
    await order({ status: 'completed', amount: '1000', createdAt: at(-5, 0), completedAt: at(-5, 20) });
    await order({ status: 'failed', amount: '1000', createdAt: at(0, 400) });
    await order({ status: 'created', amount: '1000', createdAt: at(1, 10) });

    const stats = await orderStats(database.db, database.dialect, day0);
    const volume = stats.volume.map((v) => ({ ...v, amount: v.amount.toString() }));
    expect(volume).toEqual(
      [
        {
          day: 20_000,
          inputChain: 'a',
          outputChain: 'b',
          inputToken: tokenA,
          amount: (BigInt(huge) + 123456789012345n).toString(),
          orders: 2,
        },
        { day: 20_000, inputChain: 'a', outputChain: 'b', inputToken: tokenB, amount: '5', orders: 1 },
        { day: 20_001, inputChain: 'b', outputChain: 'a', inputToken: tokenA, amount: '7', orders: 1 },
      ].map((v) => expect.objectContaining(v)),
    );
    expect(volume).toHaveLength(3);
    // 10 s, 45 s, 100 s, 4000 s
    expect(stats.fillTimes).toEqual([1, 1, 1, 0, 0, 0, 1]);
    expect(Object.fromEntries(stats.outcomes)).toEqual({ completed: 4, failed: 1, created: 1 });
  });

  it('finds an order by any of its hashes, by id, and by fill address only when asked', async () => {
    const id = await order({ status: 'completed', amount: '1', createdAt: day0 + 9 * DAY });
    const filler = '0x00000000000000000000000000000000000000F1';
    await database.db
      .updateTable('orders')
      .set({
        blockchain_order_id: hash(1),
        src_chain_tx_hash: hash(2),
        dst_chain_tx_hash: hash(3),
        settlement_tx_hash: hash(4),
        filler,
      })
      .where('id', '=', id)
      .execute();
    const page = { page: 1, pageSize: 10 };
    for (const n of [1, 2, 3, 4]) {
      const found = await listPublicOrders(database.db, { kind: 'hash', hash: hash(n) }, page);
      expect(found.items.map((o) => o.id)).toEqual([id]);
    }
    expect((await listPublicOrders(database.db, { kind: 'hash', hash: hash(5) }, page)).total).toBe(0);
    expect((await listPublicOrders(database.db, { kind: 'orderId', id }, page)).items[0]?.filler).toBe(
      filler,
    );
    const byFiller = { kind: 'address', address: filler } as const;
    expect((await listPublicOrders(database.db, byFiller, page, { matchFiller: true })).total).toBe(1);
    expect((await listPublicOrders(database.db, byFiller, page)).total).toBe(0);
  });
});
