import type { ScenarioRow } from './report.ts';

/** A scenario row measuring gas (receipts' gasUsed), with its target when it has one. */
export function gasRow(
  id: string,
  name: string,
  gas: number,
  target: number | null,
  notes: string,
  raw?: unknown,
): ScenarioRow {
  return {
    id,
    name,
    unit: 'gas',
    rate: gas,
    p50Ms: 0,
    p99Ms: 0,
    cpuPercent: 0,
    peakRssMb: 0,
    ratio: null,
    target: target === null ? null : `≤ ${target.toLocaleString('en-US')} gas`,
    pass: target === null ? null : gas <= target,
    notes,
    raw: raw ?? null,
  };
}
