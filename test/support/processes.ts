import fs from 'node:fs';
import net from 'node:net';

/** Ports and processes the end-to-end suites start and watch, read from the kernel (Linux /proc). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** A process is gone when it has exited, or exited and is waiting to be reaped. */
export const alive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** The command lines of a process group's live members, once they have had 3 s to exit. */
export async function leftRunning(group: number): Promise<string[]> {
  const members = () =>
    fs.readdirSync('/proc').flatMap((entry) => {
      if (!/^\d+$/.test(entry)) return [];
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(pgrp) !== group || state === 'Z') return [];
        return [fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()];
      } catch {
        return []; // exited meanwhile
      }
    });
  for (let waited = 0; waited < 3000; waited += 100) {
    if (members().length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return members();
}

export const readNulPairs = (file: string): Record<string, string> => {
  const pairs: Record<string, string> = {};
  if (!fs.existsSync(file)) return pairs;
  for (const pair of fs.readFileSync(file, 'utf8').split('\0')) {
    const eq = pair.indexOf('=');
    if (eq > 0) pairs[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return pairs;
};

/** The variables a fresh non-interactive bash defines (BASH_*, PIPESTATUS, …): not the doc's own. */
export const tail = (text: string, max = 6000) => (text.length > max ? `…${text.slice(-max)}` : text);

export interface Outcome {
  /** The process group of the block: what it started in the background stays in it. */
  group: number;
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why the runner stopped the block, if it did. */
  stopped?: string;
}
