/** Time source. Injected everywhere so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
