import { monotonicFactory } from 'ulid';

// Monotonic within a millisecond, so ids sort in creation order even for rows made in the same ms.
const ulid = monotonicFactory();

export type IdPrefix = 'acc' | 'key' | 'qr' | 'q' | 'ord' | 'ses' | 'act';

/** Sortable, prefixed, opaque ids: `ord_01J…`. Never a database serial (decisions.md). */
export function newId(prefix: IdPrefix, now: Date = new Date()): string {
  return `${prefix}_${ulid(now.getTime()).toLowerCase()}`;
}
