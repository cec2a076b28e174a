import { describe, expect, it } from 'vitest';
import { ThrottledCache } from './throttled-cache.ts';

describe('ThrottledCache', () => {
  const counter = () => {
    let loads = 0;
    return { load: async () => ++loads, loads: () => loads };
  };

  it('keeps a value while the version holds (up to maxAge), and past a version change only after minAge', async () => {
    const cache = new ThrottledCache<number>({ minAgeMs: 5_000, maxAgeMs: 60_000 });
    const c = counter();
    expect(await cache.get(1, 0, c.load)).toBe(1);
    expect(await cache.get(1, 59_999, c.load)).toBe(1);
    expect(await cache.get(1, 60_000, c.load)).toBe(2); // the window moved on
    expect(await cache.get(2, 64_999, c.load)).toBe(2); // changed, but too soon
    expect(await cache.get(2, 65_000, c.load)).toBe(3);
    expect(c.loads()).toBe(3);
  });

  it('shares one load among concurrent callers and does not keep a failure', async () => {
    const cache = new ThrottledCache<number>({ minAgeMs: 5_000, maxAgeMs: 60_000 });
    let release!: (n: number) => void;
    let loads = 0;
    const slow = () => {
      loads += 1;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const both = Promise.all([cache.get(1, 0, slow), cache.get(1, 0, slow)]);
    release(7);
    expect(await both).toEqual([7, 7]);
    expect(loads).toBe(1);

    const failing = new ThrottledCache<number>({ minAgeMs: 5_000, maxAgeMs: 60_000 });
    await expect(failing.get(1, 0, () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await failing.get(1, 0, async () => 9)).toBe(9);
  });
});
