import type { Selectable, SelectQueryBuilder } from 'kysely';
import { type PageRequest, pageOffset } from '../../domain/pagination.ts';
import type { Database } from './schema.ts';

/** The tables listed page by page: each has `created_at` and a unique `id`. */
type ListedTable = 'quote_requests' | 'quotes' | 'orders';

/**
 * One page of a filtered listing, newest first (ties broken by id, so pages never overlap), and the count of the
 * whole filtered set, in two queries sent together. Every list endpoint pages through this.
 */
export async function pageOf<TB extends ListedTable, T>(
  query: SelectQueryBuilder<Database, TB, object>,
  page: PageRequest,
  toItem: (row: Selectable<Database[TB]>) => T,
): Promise<{ items: T[]; total: number }> {
  // Kysely cannot resolve column names over a generic table; every ListedTable has these two.
  const q = query as unknown as SelectQueryBuilder<Database, 'orders', object>;
  const [rows, count] = await Promise.all([
    q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.pageSize)
      .offset(pageOffset(page))
      .execute(),
    q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: (rows as unknown as Selectable<Database[TB]>[]).map(toItem), total: Number(count.n) };
}
