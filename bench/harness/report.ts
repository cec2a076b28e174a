import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ScenarioRow {
  readonly id: string;
  readonly name: string;
  /** The unit of `rate`: req/s, or flows/s and swaps/s for scenario 6. */
  readonly unit: string;
  readonly rate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuPercent: number;
  readonly peakRssMb: number;
  /** rate / baseline req/s of the same run; null for scenarios that are not request-for-request comparable. */
  readonly ratio: number | null;
  /** A second comparison, to the reference named in `of` (the raw PostgreSQL writes, the bare fan-out...). */
  readonly vs?: { readonly ratio: number; readonly of: string };
  readonly target: string | null;
  readonly pass: boolean | null;
  /**
   * Set when the scenario's responses were not what it expects (load-row.ts unexpectedResponses): its rate then
   * measures something else (a refusal, an error page), and the row fails whatever its target says.
   */
  readonly failure?: string;
  readonly notes: string;
  readonly raw: unknown;
}

export interface BackendRun {
  readonly backend: string;
  readonly seed: Record<string, unknown>;
  readonly scenarios: ScenarioRow[];
}

export interface BenchReport {
  readonly generatedAt: string;
  readonly machine: Record<string, unknown>;
  readonly settings: Record<string, unknown>;
  readonly runs: BackendRun[];
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function toMarkdown(report: BenchReport): string {
  const lines: string[] = [];
  lines.push('# Ferry benchmark (`npm run bench`)', '');
  const m = report.machine;
  lines.push(
    `Generated ${report.generatedAt} on ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}. ` +
      `Load from autocannon in a separate process on 127.0.0.1; one server process, nothing pinned.`,
    '',
    `Settings: ${Object.entries(report.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
    '',
  );
  for (const run of report.runs) {
    lines.push(`## ${run.backend}`, '');
    lines.push(
      `Seed: ${Object.entries(run.seed)
        .map(([k, v]) => `${k} ${typeof v === 'number' ? fmt(v, Number.isInteger(v) ? 0 : 1) : v}`)
        .join(', ')}`,
      '',
    );
    lines.push(
      '| # | scenario | rate | p50 ms | p99 ms | server CPU % | peak RSS MB | × baseline | × reference | target | |',
    );
    lines.push('|---|---|---:|---:|---:|---:|---:|---:|---|---|---|');
    for (const s of run.scenarios) {
      lines.push(
        `| ${s.id} | ${s.name} | ${fmt(s.rate)} ${s.unit} | ${fmt(s.p50Ms, 1)} | ${fmt(s.p99Ms, 1)} | ${fmt(
          s.cpuPercent,
        )} | ${fmt(s.peakRssMb)} | ${s.ratio === null ? '' : fmt(s.ratio, 2)} | ${
          s.vs ? `${fmt(s.vs.ratio, 2)} × ${s.vs.of}` : ''
        } | ${s.target ?? ''} | ${verdict(s)} |`,
      );
    }
    const notes = run.scenarios.filter((s) => s.notes);
    if (notes.length) {
      lines.push('');
      for (const s of notes) lines.push(`- ${s.id}: ${s.notes}`);
    }
    lines.push('');
  }
  lines.push(
    'CPU is the server process only, in % of one core (200 % = both cores). Peak RSS is VmHWM, reset before each',
    "scenario. Latencies of 6a are whole flows (4 requests); of 7 and 10 from the event's occurredAt to receipt;",
    'of 11 from POST /api/v1/swaps to the `completed` event. `× reference` compares with the reference named there,',
    'measured in the same run: `raw PG` is scenario 8 (begin, two inserts, commit through `pg`), `bare p99` the bare',
    '`node:http` fan-out of scenario 7, `one instance` the single-instance phase of scenario 9.',
    '',
  );
  return lines.join('\n');
}

function verdict(s: ScenarioRow): string {
  if (s.failure) return '**failed**';
  return s.pass === null ? '' : s.pass ? 'pass' : '**miss**';
}

export function writeReport(dir: string, report: BenchReport): { json: string; md: string } {
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'latest.json');
  const md = path.join(dir, 'latest.md');
  fs.writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(md, toMarkdown(report));
  return { json, md };
}
