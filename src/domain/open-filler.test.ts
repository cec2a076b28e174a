import { describe, expect, it } from 'vitest';
import { isOpenToAnyFiller, OPEN_FILLER } from './open-filler.ts';

describe('isOpenToAnyFiller', () => {
  it('is the zero address only, in any case', () => {
    expect(isOpenToAnyFiller(OPEN_FILLER)).toBe(true);
    expect(
      isOpenToAnyFiller('0x0000000000000000000000000000000000000000'.toUpperCase().replace('0X', '0x')),
    ).toBe(true);
    expect(isOpenToAnyFiller('0x0000000000000000000000000000000000000001')).toBe(false);
    expect(isOpenToAnyFiller('0x000000000000000000000000000000000000000')).toBe(false);
    expect(isOpenToAnyFiller(null)).toBe(false);
    expect(isOpenToAnyFiller(undefined)).toBe(false);
  });
});
