/** One autocannon measurement as a report row (ratio to the baseline, target, verdict), and its log line. */

import { CONNECTIONS, DURATION, mb, say, WARMUP } from './bench-settings.ts';
import { drive, type LoadResult } from './load.ts';
import type { ScenarioRow } from './report.ts';
import type { RunningServer } from './server.ts';

/** Above this share of responses not 2xx (or never answered), a load's rate no longer measures its scenario. */
const MAX_UNEXPECTED_SHARE = 0.01;

/**
 * Why a load's responses disqualify its rate, or undefined: every scenario driven through `row` expects 2xx
 * (200 or 201), and a path that answers 422 or 500 in a few hundred microseconds would otherwise read as fast.
 */
export function unexpectedResponses(r: LoadResult): string | undefined {
  const bad = r.non2xx + r.errors;
  const sent = r.requests + r.errors;
  if (bad <= MAX_UNEXPECTED_SHARE * sent) return undefined;
  const codes = Object.entries(r.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${n.toLocaleString('en-US')} × ${code}`);
  if (r.errors) codes.push(`${r.errors} errors`);
  return `${bad.toLocaleString('en-US')} of ${sent.toLocaleString('en-US')} responses not 2xx (${codes.join(', ')}): the rate measures them, not the scenario`;
}

export function row(
  id: string,
  name: string,
  r: LoadResult,
  baseline: number | ScenarioRow,
  target: { ratio?: number; rate?: number } = {},
  notes = '',
): ScenarioRow {
  const baselineRps = typeof baseline === 'number' ? baseline : baseline.rate;
  const ratio = r.reqPerSec / baselineRps;
  const failure = unexpectedResponses(r);
  const pass = failure
    ? false
    : target.ratio !== undefined
      ? ratio >= target.ratio
      : target.rate !== undefined
        ? r.reqPerSec >= target.rate
        : null;
  const problems = failure
    ? ` FAILED: ${failure}.`
    : r.non2xx + r.errors > 0
      ? ` non-2xx ${r.non2xx}, errors ${r.errors} (${JSON.stringify(r.statusCodes)}).`
      : '';
  return {
    id,
    name,
    unit: id === '6b' ? 'swaps/s' : 'req/s',
    rate: r.reqPerSec,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    cpuPercent: r.proc.cpuPercent,
    peakRssMb: mb(r.proc.peakRssBytes),
    ratio,
    target:
      target.ratio !== undefined
        ? `≥ ${target.ratio} × baseline`
        : target.rate !== undefined
          ? `≥ ${target.rate}/s`
          : null,
    pass,
    ...(failure ? { failure } : {}),
    notes:
      `${notes}${problems}${typeof baseline === 'number' ? '' : ` Baseline measured right after: ${baselineRps.toFixed(0)} req/s.`}`.trim(),
    raw: {
      ...r,
      baselineReqPerSec: baselineRps,
      cpuMicrosPerRequest: (r.proc.cpuPercent * 1e4) / r.reqPerSec,
    },
  };
}

export function logRow(s: ScenarioRow) {
  say(
    `  ${s.id.padEnd(3)} ${s.name.padEnd(44)} ${s.rate.toFixed(0).padStart(7)} ${s.unit}  p50 ${s.p50Ms.toFixed(1)} ms  p99 ${s.p99Ms.toFixed(1)} ms  cpu ${s.cpuPercent.toFixed(0)} %  rss ${s.peakRssMb.toFixed(0)} MB${s.ratio === null ? '' : `  ${s.ratio.toFixed(2)}×`}${s.vs ? `  ${s.vs.ratio.toFixed(2)} × ${s.vs.of}` : ''}${s.failure ? '  FAILED' : s.pass === false ? '  MISS' : ''}${s.notes ? `  (${s.notes})` : ''}`,
  );
}

/**
 * The baseline process stays up (idle) for the whole run and is measured again right before every API scenario:
 * the machine is shared, so each ratio compares two measurements taken a few seconds apart.
 */
export async function measureBaseline(server: RunningServer, warmup = false): Promise<ScenarioRow> {
  if (warmup) await drive(server, { path: '/baseline', connections: CONNECTIONS, durationSeconds: WARMUP });
  const r = await drive(server, { path: '/baseline', connections: CONNECTIONS, durationSeconds: DURATION });
  return row('1', 'baseline: bare Fastify GET, small JSON', r, r.reqPerSec);
}
