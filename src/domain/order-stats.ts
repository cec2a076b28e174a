import type { OrderStatus } from './lifecycle.ts';

/** Fill-time buckets (completedAt − createdAt), in seconds: [from, to), `to` null for the open-ended last one. */
export const FILL_TIME_BUCKETS: readonly { readonly from: number; readonly to: number | null }[] = [
  { from: 0, to: 30 },
  { from: 30, to: 60 },
  { from: 60, to: 120 },
  { from: 120, to: 300 },
  { from: 300, to: 900 },
  { from: 900, to: 3600 },
  { from: 3600, to: null },
];

/** How far back the public stats look. */
export const STATS_WINDOW_DAYS = 30;

export interface VolumeRow {
  /** Unix day (UTC) of completion. */
  readonly day: number;
  readonly inputChain: string;
  readonly outputChain: string;
  readonly inputToken: string;
  /** Sum of the input amounts, base units of `inputToken`. */
  readonly amount: bigint;
  /** Sum of the protocol fees paid on them, base units of `inputToken`. */
  readonly protocolFee: bigint;
  readonly orders: number;
}

export interface OrderStats {
  readonly volume: readonly VolumeRow[];
  /** Completed orders per FILL_TIME_BUCKETS entry, in the same order. */
  readonly fillTimes: readonly number[];
  readonly outcomes: ReadonlyMap<OrderStatus, number>;
}
