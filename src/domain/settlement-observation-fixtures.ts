import type { Address } from './address.ts';
import type { ObservedFill, RecordedAction, SettlementObservation } from './settlement-observation.ts';

/**
 * Made-up settlement observations for the settlement-decision tests: one order's terms, a fill that meets them,
 * and builders for the states around them. Pure data, so the domain's tests can share it.
 */
export const FILLER = '0x00000000000000000000000000000000000000f1' as Address;
export const RECIPIENT = '0x00000000000000000000000000000000000000a1' as Address;
export const TOKEN = '0x00000000000000000000000000000000000000b1' as Address;
export const OTHER = '0x00000000000000000000000000000000000000c1' as Address;
export const OPEN = 1_000n;
export const FILL_BY = 2_000n;
export const GRACE = 10n;
export const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

export const terms = {
  recipient: RECIPIENT,
  outputToken: TOKEN,
  outputAmount: 990n,
  filler: FILLER,
  openDeadline: OPEN,
  fillDeadline: FILL_BY,
  // Exclusive throughout unless a test says otherwise: only FILLER may fill.
  exclusivityDeadline: FILL_BY,
};

export const goodFill: ObservedFill = {
  txHash: tx(0xf),
  filler: FILLER,
  recipient: RECIPIENT,
  token: TOKEN,
  amount: 990n,
  blockTimestamp: FILL_BY,
  depth: 1,
};

export function observation(overrides: Partial<SettlementObservation> = {}): SettlementObservation {
  return {
    status: 'created',
    terms,
    escrow: 'none',
    inputTime: 500n,
    outputTime: 500n,
    settleGrace: GRACE,
    outputConfirmations: 1,
    actions: { deposit: null, settle: null, refund: null },
    route: { method: 'attester' },
    fill: null,
    escrowAtLatest: 'none',
    depositCheck: { balance: 1_000n, allowance: 1_000n, inputAmount: 1_000n, revert: null },
    ...overrides,
  };
}

export const open = (overrides: Partial<SettlementObservation> = {}) =>
  observation({ status: 'deposited', escrow: 'active', depositCheck: null, ...overrides });
export const actions = (a: Partial<SettlementObservation['actions']>) => ({
  deposit: null,
  settle: null,
  refund: null,
  ...a,
});
export const confirmed = (n: number): RecordedAction => ({ status: 'confirmed', txHash: tx(n) });
export const recorded = (n: number): RecordedAction => ({ status: 'recorded', txHash: tx(n) });
