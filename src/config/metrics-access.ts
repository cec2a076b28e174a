import net from 'node:net';
import { type Config, ConfigError } from './config.ts';

/** Who may read `GET /metrics` on one listener: bearers of the token, or anyone who reaches the listener. */
export type MetricsAccess = { readonly token: string } | { readonly open: 'loopback' | 'public' };

/** `localhost`, 127.0.0.0/8 and ::1 (also as ::ffff:127.x): only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/**
 * The rule of docs/metrics.md: METRICS_TOKEN when set; otherwise open only where nobody else can reach it (a
 * loopback HOST, and on the API's listener no TRUST_PROXY, since a proxy in front forwards outside requests to
 * every path), or where the operator opened it (METRICS_PUBLIC=true). Anything else is a one-line refusal to
 * start, naming the variable: metrics show order volumes, balances and errors, and an operator who binds
 * 0.0.0.0 has not said they may be public.
 */
export function metricsAccess(
  config: Config,
  listener: 'api' | 'worker',
): { access: MetricsAccess } | { problem: string } {
  if (config.metricsToken !== null) return { access: { token: config.metricsToken } };
  if (config.metricsPublic) return { access: { open: 'public' } };
  const behindProxy = listener === 'api' && config.trustProxy !== false;
  if (isLoopbackHost(config.host) && !behindProxy) return { access: { open: 'loopback' } };
  const why = behindProxy
    ? 'TRUST_PROXY is set, so a proxy forwards outside requests to GET /metrics'
    : `HOST=${config.host} is not a loopback address, so GET /metrics would be open to the network`;
  return {
    problem: `METRICS_TOKEN is required: ${why}; set METRICS_TOKEN (scrapers send Authorization: Bearer <token>), or METRICS_PUBLIC=true to serve it without a token`,
  };
}

/** The access of `metricsAccess`, or a refusal to start (ConfigError, one line naming METRICS_TOKEN). */
export function requireMetricsAccess(config: Config, listener: 'api' | 'worker'): MetricsAccess {
  const decided = metricsAccess(config, listener);
  if ('problem' in decided) throw new ConfigError([decided.problem]);
  return decided.access;
}
