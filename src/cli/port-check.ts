import net from 'node:net';
import type { Config } from '../config/config.ts';

/** A port `ferry start` needs, with the setting that chose it. */
interface WantedPort {
  readonly port: number;
  readonly host: string;
  readonly setting: string;
}

/** Anvil binds loopback; the API binds HOST. Port 0 means "any free one" and cannot clash. */
export function portsToCheck(config: Config, withDevnets: boolean): WantedPort[] {
  const wanted: WantedPort[] = [{ port: config.port, host: config.host, setting: 'PORT' }];
  if (withDevnets) {
    wanted.push({ port: config.devnetPorts[0], host: '127.0.0.1', setting: 'DEVNET_PORT_A' });
    wanted.push({ port: config.devnetPorts[1], host: '127.0.0.1', setting: 'DEVNET_PORT_B' });
  }
  return wanted.filter((w) => w.port !== 0);
}

function isFree({ port, host }: WantedPort): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Checked before anything starts (no devnet deployed, no database opened), so a clash costs the operator one
 * line instead of a stack trace after the devnets came up. Returns that line, or null when every port is free.
 */
export async function findPortClash(wanted: readonly WantedPort[]): Promise<string | null> {
  const seen = new Map<number, string>();
  for (const w of wanted) {
    const other = seen.get(w.port);
    if (other)
      return `port ${w.port} is set for both ${other} and ${w.setting}; give ${w.setting} another port`;
    seen.set(w.port, w.setting);
  }
  for (const w of wanted) {
    if (!(await isFree(w)))
      return `port ${w.port} (${w.setting}) is already in use; stop what holds it or set ${w.setting} to a free port`;
  }
  return null;
}
