import fs from 'node:fs';

/** Clock ticks per second for /proc/<pid>/stat utime and stime (USER_HZ, 100 on every Linux we run on). */
const CLK_TCK = 100;

/** User + system CPU seconds a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function statusField(pid: number, name: string): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Peak resident set size (VmHWM) in bytes since the process started or since the last resetPeakRss. */
export const peakRssBytes = (pid: number) => statusField(pid, 'VmHWM');
export const rssBytes = (pid: number) => statusField(pid, 'VmRSS');

/** Resets VmHWM to the current RSS (Linux clear_refs "5"), so each scenario reports its own peak. */
export function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Direct children of a process (e.g. the anvil devnets of `ferry start`). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // The process ended between readdir and read.
    }
  }
  return out;
}

export interface ProcSample {
  /** CPU used during the window, in percent of one core (200 % = both cores of this machine). */
  readonly cpuPercent: number;
  readonly peakRssBytes: number;
  /** The same for the helper processes (devnet RPC), summed. */
  readonly helperCpuPercent: number;
}

/**
 * Measures a process (and optional helpers) over a window: CPU from /proc/<pid>/stat, peak RSS from VmHWM after
 * a reset, with an RSS poll as a fallback when clear_refs is not writable.
 */
export function startProcWindow(pid: number, helpers: readonly number[] = []) {
  const resetOk = resetPeakRss(pid);
  const startWall = process.hrtime.bigint();
  const startCpu = cpuSeconds(pid);
  const helperCpu = () => helpers.reduce((sum, p) => sum + safe(() => cpuSeconds(p), 0), 0);
  const startHelpers = helperCpu();
  let polledPeak = rssBytes(pid);
  const timer = setInterval(() => {
    polledPeak = Math.max(
      polledPeak,
      safe(() => rssBytes(pid), 0),
    );
  }, 100);
  timer.unref();
  return {
    stop(): ProcSample {
      clearInterval(timer);
      const wall = Number(process.hrtime.bigint() - startWall) / 1e9;
      const peak = resetOk ? peakRssBytes(pid) : Math.max(polledPeak, rssBytes(pid));
      return {
        cpuPercent: ((cpuSeconds(pid) - startCpu) / wall) * 100,
        peakRssBytes: peak,
        helperCpuPercent: ((helperCpu() - startHelpers) / wall) * 100,
      };
    },
  };
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
