import { describe, expect, it } from 'vitest';
import { quoteTimes } from './quote-times.ts';

describe('quote times', () => {
  const base = {
    validForSeconds: 60,
    openWindowSeconds: 600,
    fillWindowSeconds: 1800,
    exclusivitySeconds: 45,
  };

  it('ends validFor after it starts, on the server clock, in whole seconds', () => {
    const times = quoteTimes({
      ...base,
      now: new Date(1_000_999),
      inputChainNow: 1_000,
      outputChainNow: 1_000,
    });
    expect(times.startTime).toBe(1_000);
    expect(times.endTime).toBe(1_060);
  });

  it('counts the deposit deadline on the input chain, the fill deadline on the later chain clock', () => {
    const times = quoteTimes({
      ...base,
      now: new Date(1_000_000),
      inputChainNow: 900,
      outputChainNow: 1_200,
    });
    expect(times.openDeadline).toBe(900 + 60 + 600);
    expect(times.fillDeadline).toBe(1_200 + 60 + 600 + 1800);
    const later = quoteTimes({
      ...base,
      now: new Date(1_000_000),
      inputChainNow: 1_300,
      outputChainNow: 1_200,
    });
    expect(later.fillDeadline).toBe(1_300 + 60 + 600 + 1800);
  });

  it("counts the exclusivity on the output chain's clock, from the quote's end", () => {
    const times = quoteTimes({
      ...base,
      now: new Date(1_000_000),
      inputChainNow: 1_300,
      outputChainNow: 1_200,
    });
    expect(times.exclusivityDeadline).toBe(1_200 + 60 + 45);
    expect(times.exclusivityDeadline).toBeLessThan(times.fillDeadline);
  });
});
