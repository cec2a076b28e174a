import { ulid } from 'ulid';

export type IdPrefix = 'acc' | 'key' | 'qr' | 'q' | 'ord' | 'ses';

/** Sortable, prefixed, opaque ids: `ord_01J…`. Never a database serial (decisions.md). */
export function newId(prefix: IdPrefix, now: Date = new Date()): string {
  return `${prefix}_${ulid(now.getTime()).toLowerCase()}`;
}
