import { isIP } from 'node:net';
import path from 'node:path';

/** Everything Ferry reads from its environment, parsed once at start. */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  readonly dataDir: string;
  /** Path of a chain registry file; null means "start the built-in devnets". */
  readonly chainRegistryPath: string | null;
  readonly devnetPorts: readonly [number, number];
  /** Seconds between blocks on the built-in devnets; 0 mines each transaction at once. */
  readonly devnetBlockTime: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly redisUrl: string | null;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  readonly redisKeyPrefix: string;
  readonly streams: {
    /** Concurrent SSE streams, and separately WebSocket streams, per API key, session or anonymous IP. */
    readonly maxPerClient: number;
    readonly heartbeatMs: number;
    /** How many missed events a reconnecting client may replay; an older gap gets `stream.reset`. */
    readonly replayMaxEvents: number;
    /** A client whose unsent output passes this many bytes is cut off: the server never buffers without limit. */
    readonly maxBufferBytes: number;
    /** Fallback poll of the event log, for writers that could not notify (another process without Redis). */
    readonly pollMs: number;
  };
  /**
   * Which proxies may name the client IP in `X-Forwarded-For`: none (false), the last N hops, or the listed
   * addresses/CIDRs. Never "all": the leftmost entry is written by the client itself.
   */
  readonly trustProxy: false | number | readonly string[];
  readonly quoteRequestTtlSeconds: number;
  /** How long a balance reading that covers a quote request may answer later checks (0: read every time). */
  readonly balanceCacheMs: number;
  readonly quoteValiditySeconds: number;
  readonly openWindowSeconds: number;
  readonly fillWindowSeconds: number;
  /** A quote's output, in the input token's decimals, may exceed the input by at most this many basis points. */
  readonly maxQuotePremiumBps: number;
  /** How often each chain's latest block time is read, to compute deadlines on the chain's clock. */
  readonly chainClockRefreshMs: number;
  readonly sessionTtlSeconds: number;
  readonly siweDomains: readonly string[];
  readonly rateLimits: { readonly apiKey: number; readonly session: number; readonly ip: number };
  readonly signIn: {
    /** `POST /auth/verify` per client IP per minute, on top of the per-IP request limit. */
    readonly perIpPerMinute: number;
    /** Live sessions per wallet address; a new one ends the oldest. */
    readonly sessionsPerAddress: number;
  };
  readonly bodyLimitBytes: number;
  readonly expirySweepMs: number;
  readonly worker: {
    readonly enabled: boolean;
    readonly pollMs: number;
    /** How long a worker holds an order; a crashed worker's orders are picked up after it. */
    readonly leaseMs: number;
    /** Sends deposit, settle and refund transactions. Secret: never logged. */
    readonly relayerKey: `0x${string}` | null;
    /** Signs fill attestations; the messenger contract trusts its address. Secret: never logged. */
    readonly attesterKey: `0x${string}` | null;
    /** Test-only crash points (FERRY_FAULT_INJECT), see src/settlement/fault-injector.ts. */
    readonly faultInject: readonly string[];
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Parses the environment. A missing value takes its default; an invalid one is collected so that the
 * operator sees every problem at once, and start is refused.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };

  const privateKey = (name: string): `0x${string}` | null => {
    const raw = env[name];
    if (raw === undefined || raw === '') return null;
    // The value itself never goes into the message: it is a secret.
    if (!/^0x[0-9a-fA-F]{64}$/.test(raw))
      problems.push(`${name} must be a 0x-prefixed 32-byte hex private key`);
    return raw as `0x${string}`;
  };

  const host = env.HOST || '127.0.0.1';
  const port = int('PORT', 8080, 0, 65535);
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || `sqlite:${path.join(dataDir, 'ferry.sqlite')}`;
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with sqlite: or postgres://');
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must start with redis://');

  const config: Config = {
    host,
    port,
    databaseUrl,
    dataDir,
    chainRegistryPath: env.CHAIN_REGISTRY ? path.resolve(env.CHAIN_REGISTRY) : null,
    devnetPorts: [int('DEVNET_PORT_A', 8545, 1, 65535), int('DEVNET_PORT_B', 8546, 1, 65535)],
    devnetBlockTime: int('DEVNET_BLOCK_TIME', 0, 0, 3600),
    logLevel,
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'ferry:',
    streams: {
      maxPerClient: int('STREAM_LIMIT', 3, 1, 1000),
      heartbeatMs: int('STREAM_HEARTBEAT_MS', 15_000, 10, 300_000),
      replayMaxEvents: int('STREAM_REPLAY_MAX_EVENTS', 10_000, 1, 1_000_000),
      maxBufferBytes: 1024 * 1024,
      pollMs: int('STREAM_POLL_MS', 500, 10, 60_000),
    },
    trustProxy: trustProxy(env.TRUST_PROXY, problems),
    quoteRequestTtlSeconds: int('QUOTE_REQUEST_TTL_SECONDS', 120, 5, 86_400),
    balanceCacheMs: int('BALANCE_CACHE_MS', 1000, 0, 60_000),
    quoteValiditySeconds: int('QUOTE_VALIDITY_SECONDS', 60, 10, 600),
    openWindowSeconds: int('OPEN_WINDOW_SECONDS', 600, 60, 86_400),
    fillWindowSeconds: int('FILL_WINDOW_SECONDS', 1800, 60, 7 * 86_400),
    maxQuotePremiumBps: int('MAX_QUOTE_PREMIUM_BPS', 1000, 0, 1_000_000),
    chainClockRefreshMs: int('CHAIN_CLOCK_REFRESH_MS', 5000, 100, 300_000),
    sessionTtlSeconds: int('SESSION_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    siweDomains: (env.SIWE_DOMAINS || `${host}:${port},localhost:${port}`)
      .split(',')
      .map((d) => d.trim())
      .filter(Boolean),
    rateLimits: {
      apiKey: int('RATE_LIMIT_API_KEY', 100, 1, 1_000_000),
      session: int('RATE_LIMIT_SESSION', 60, 1, 1_000_000),
      ip: int('RATE_LIMIT_IP', 120, 1, 1_000_000),
    },
    signIn: {
      perIpPerMinute: int('RATE_LIMIT_SIGN_IN', 10, 1, 1_000_000),
      sessionsPerAddress: int('SESSIONS_PER_ADDRESS', 5, 1, 1000),
    },
    bodyLimitBytes: 64 * 1024,
    expirySweepMs: int('EXPIRY_SWEEP_MS', 1000, 50, 60_000),
    worker: {
      enabled: bool('WORKER', true),
      pollMs: int('WORKER_POLL_MS', 500, 20, 60_000),
      leaseMs: int('WORKER_LEASE_MS', 30_000, 500, 600_000),
      relayerKey: privateKey('RELAYER_PRIVATE_KEY'),
      attesterKey: privateKey('ATTESTER_PRIVATE_KEY'),
      faultInject: (env.FERRY_FAULT_INJECT || '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    },
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** A CIDR or a plain IPv4/IPv6 address. */
function isAddressOrCidr(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** `false`/`0`/unset, a hop count, or a comma list of proxy addresses/CIDRs. `true` is refused, see Config. */
function trustProxy(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true') {
    problems.push(
      'TRUST_PROXY=true is refused: it lets a client choose its own IP; set the number of proxy hops (e.g. 1) or the proxy addresses',
    );
    return false;
  }
  if (/^\d+$/.test(raw)) {
    if (Number(raw) <= 10) return Number(raw);
    problems.push(`TRUST_PROXY must be false, a hop count from 1 to 10, or proxy addresses; got "${raw}"`);
    return false;
  }
  const list = raw.split(',').map((entry) => entry.trim());
  const bad = list.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length === 0) return Object.freeze(list);
  problems.push(
    `TRUST_PROXY must be false, a hop count, or a comma list of proxy addresses/CIDRs; "${bad.join('", "')}" is not one`,
  );
  return false;
}

/** The database URL with any password masked, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}
