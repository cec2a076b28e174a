import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

describe('newId', () => {
  it('is prefixed, lower-case Crockford base32, and sorts in creation order within and across milliseconds', () => {
    const ids: string[] = [];
    const start = Date.UTC(2026, 0, 1);
    for (let ms = 0; ms < 50; ms++) for (let i = 0; i < 20; i++) ids.push(newId('ord', new Date(start + ms)));
    for (const id of ids) expect(id).toMatch(/^ord_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws fresh random bits for each new millisecond (over more than one pool of random bytes)', () => {
    const start = Date.UTC(2027, 0, 1);
    // 1,000 milliseconds × 16 characters = 16,000 bytes: the 4 KiB pool is refilled several times.
    const randomParts = Array.from({ length: 1000 }, (_, ms) => newId('q', new Date(start + ms)).slice(12));
    expect(new Set(randomParts).size).toBe(randomParts.length);
    // Each of the 32 characters shows up in the first random position over 1,000 draws (p of a miss ≈ 1e-12).
    expect(new Set(randomParts.map((part) => part[0])).size).toBe(32);
  });
});
