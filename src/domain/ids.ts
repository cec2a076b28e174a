import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * ulid's own PRNG asks the OS for one byte per character (16 calls per id); this one draws the same bytes from a
 * pool the OS refills 4 KiB at a time. Same distribution: a byte / 256, which ulid maps onto its 32 characters.
 */
function pooledRandom(size = 4096): () => number {
  const pool = new Uint8Array(size);
  let next = size;
  return () => {
    if (next === size) {
      randomFillSync(pool);
      next = 0;
    }
    return (pool[next++] as number) / 256;
  };
}

// Monotonic within a millisecond, so ids sort in creation order even for rows made in the same ms.
const ulid = monotonicFactory(pooledRandom());

export type IdPrefix = 'acc' | 'key' | 'qr' | 'q' | 'ord' | 'ses' | 'act' | 'wh' | 'whd';

/** Sortable, prefixed, opaque ids: `ord_01J…`. Never a database serial. */
export function newId(prefix: IdPrefix, now: Date = new Date()): string {
  return `${prefix}_${ulid(now.getTime()).toLowerCase()}`;
}
