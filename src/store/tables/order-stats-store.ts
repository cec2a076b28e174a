import { type RawBuilder, sql } from 'kysely';
import type { OrderStatus } from '../../domain/lifecycle.ts';
import { FILL_TIME_BUCKETS, type OrderStats } from '../../domain/order-stats.ts';
import type { Dialect } from '../engine/database.ts';
import type { Executor } from '../engine/db-types.ts';

const DAY_MS = 86_400_000;

/**
 * SQLite's sum() is 64-bit (or a lossy float for text): the amounts (up to 78 digits) are summed in 12-digit limbs,
 * each limb's sum exact up to 9.2 million orders in one group, and put together in JavaScript. PostgreSQL sums
 * them exactly as numeric.
 */
const LIMB_DIGITS = 12;
const LIMBS = 7;

type AmountColumn = 'input_amount' | 'protocol_fee';

function amountSums(dialect: Dialect, column: AmountColumn): RawBuilder<unknown>[] {
  const ref = sql.ref(column);
  if (dialect === 'postgres') return [sql`sum(${ref}::numeric)::text`];
  return Array.from(
    { length: LIMBS },
    (_, i) =>
      sql`sum(cast(substr(${ref}, ${sql.lit(-LIMB_DIGITS * (i + 1))}, ${sql.lit(LIMB_DIGITS)}) as integer))`,
  );
}

function totalOf(row: Record<string, unknown>, limbs: number, prefix: string): bigint {
  let total = 0n;
  for (let i = limbs - 1; i >= 0; i -= 1) {
    total = total * 10n ** BigInt(LIMB_DIGITS) + BigInt(String(row[`${prefix}${i}`] ?? 0));
  }
  return total;
}

/**
 * The explorer's charts over orders since `sinceMs`: three grouped statements. Volume and fill times count the
 * orders completed since then (index orders_status_completed), by the UTC day of completion; outcomes count the
 * orders created since then by status (index orders_created).
 */
export async function orderStats(db: Executor, dialect: Dialect, sinceMs: number): Promise<OrderStats> {
  const sums = amountSums(dialect, 'input_amount');
  const fees = amountSums(dialect, 'protocol_fee');
  const day = sql<number>`completed_at / ${sql.lit(DAY_MS)}`;
  const completed = db
    .selectFrom('orders')
    .where('status', '=', 'completed')
    .where('completed_at', '>=', sinceMs);
  const bucket = sql<number>`case ${sql.join(
    FILL_TIME_BUCKETS.flatMap((b, i) =>
      b.to === null ? [] : [sql`when completed_at - created_at < ${sql.lit(b.to * 1000)} then ${sql.lit(i)}`],
    ),
    sql` `,
  )} else ${sql.lit(FILL_TIME_BUCKETS.length - 1)} end`;

  const [volumeRows, fillRows, outcomeRows] = await Promise.all([
    completed
      .select([
        day.as('day'),
        'input_chain',
        'output_chain',
        'input_token',
        (eb) => eb.fn.countAll<number | string>().as('n'),
        ...sums.map((s, i) => s.as(`s${i}`)),
        ...fees.map((s, i) => s.as(`f${i}`)),
      ])
      .groupBy([day, 'input_chain', 'output_chain', 'input_token'])
      .orderBy('day')
      .execute(),
    completed
      .select([bucket.as('bucket'), (eb) => eb.fn.countAll<number | string>().as('n')])
      .groupBy(bucket)
      .execute(),
    db
      .selectFrom('orders')
      .where('created_at', '>=', sinceMs)
      .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
      .groupBy('status')
      .execute(),
  ]);

  const fillTimes = FILL_TIME_BUCKETS.map(() => 0);
  for (const row of fillRows) fillTimes[Number(row.bucket)] = Number(row.n);
  return {
    volume: volumeRows.map((row) => ({
      day: Number(row.day),
      inputChain: row.input_chain,
      outputChain: row.output_chain,
      inputToken: row.input_token,
      amount: totalOf(row as Record<string, unknown>, sums.length, 's'),
      protocolFee: totalOf(row as Record<string, unknown>, fees.length, 'f'),
      orders: Number(row.n),
    })),
    fillTimes,
    outcomes: new Map(outcomeRows.map((row) => [row.status as OrderStatus, Number(row.n)])),
  };
}
