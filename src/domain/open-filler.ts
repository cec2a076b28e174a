/**
 * The zero address as an order's filler: the escrow lets any filler fill it from the start, with no exclusive
 * window. Orders opened on chain may name it; every order Ferry quotes names its LP instead.
 */
export const OPEN_FILLER = '0x0000000000000000000000000000000000000000';

/** Whether an order's filler is the zero address, in any letter case (the explorer passes what the API answered). */
export function isOpenToAnyFiller(filler: string | null | undefined): boolean {
  return typeof filler === 'string' && filler.toLowerCase() === OPEN_FILLER;
}
