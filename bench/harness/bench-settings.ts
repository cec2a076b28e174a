/** The bench's settings, read once from the environment (bench/README.md lists them), and its progress log. */
import path from 'node:path';

export const say = (line: string) => process.stderr.write(`${line}\n`);

export const QUICK = process.env.BENCH_QUICK === '1';
export const DURATION = Number(process.env.BENCH_DURATION ?? (QUICK ? 2 : 10));
export const WARMUP = QUICK ? 0.5 : 2;
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const ONLY = process.env.BENCH_ONLY
  ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim()))
  : null;
export const SEED_ORDERS = Number(process.env.BENCH_SEED_ORDERS ?? (QUICK ? 5_000 : 100_000));
export const SEED_EXTRA_REQUESTS = QUICK ? 1_000 : 12_000;
export const LP_COUNT = 16;
export const RESULTS = path.resolve(
  process.env.BENCH_RESULTS_DIR ?? path.join(import.meta.dirname, '..', 'results'),
);
export const PROFILE_DIR = path.join(RESULTS, 'profiles');
export const nodeFlags =
  process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];

export const wants = (id: string) => ONLY === null || ONLY.has(id) || ONLY.has(id.replace(/[ab]$/, ''));
export const mb = (bytes: number) => bytes / 2 ** 20;
