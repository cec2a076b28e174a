/**
 * Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=1): the top frames by self time (in % of the busy, non-idle samples), and by inclusive time for
 * Ferry's own source files. Usage: npx tsx bench/profile-top.ts <file.cpuprofile> [count]
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
const [file, countArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-top.ts <file.cpuprofile> [count]');
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[] };
const count = Number(countArg ?? 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// Percentages are of the busy samples: a server profile is mostly idle (seeding, waiting between scenarios).
const isIdle = (n: Node) => n.callFrame.functionName === '(idle)';
const total = profile.nodes.reduce((s, n) => s + (isIdle(n) ? 0 : n.hitCount), 0);
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '~/').replace(/^file:\/\/.*\/work\/main\//, '')}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
for (const n of profile.nodes) if (!isIdle(n)) self.set(label(n), (self.get(label(n)) ?? 0) + n.hitCount);
const inclusive = new Map<string, number>();
const visit = (n: Node, seen: Set<string>): number => {
  let sum = n.hitCount;
  for (const c of n.children ?? []) sum += visit(byId.get(c) as Node, new Set([...seen, label(n)]));
  if (!seen.has(label(n))) inclusive.set(label(n), (inclusive.get(label(n)) ?? 0) + sum);
  return sum;
};
const root = profile.nodes[0] as Node;
visit(root, new Set());
const pct = (v: number) => `${((v / total) * 100).toFixed(1).padStart(5)} %`;
const out = (title: string, entries: [string, number][]) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of entries.slice(0, count)) process.stdout.write(`${pct(v)}  ${k}\n`);
};
out(
  'self time',
  [...self].sort((a, b) => b[1] - a[1]),
);
out(
  'inclusive time, Ferry sources',
  [...inclusive].filter(([k]) => / (dist\/)?src\//.test(k)).sort((a, b) => b[1] - a[1]),
);
