import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FerryError } from '../domain/ferry-error.ts';
import { LOG_FORMATS, type LogFormatSetting } from '../process/log-format.ts';
import {
  int,
  oneOf,
  optionalBool,
  privateKey,
  type Setting,
  text,
  trustProxySetting,
} from './setting-parsers.ts';

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
  /** How the built-in devnets prove fills: LayerZero V2 (DVNs and executor in the devnet process) or the attester. */
  readonly devnetMessenger: 'layerzero' | 'attester';
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: readable lines on a terminal, JSON lines otherwise. */
  readonly logFormat: LogFormatSetting;
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
    /** Live events held for an SSE client while its replay is written; past it the client is cut off. */
    readonly replayMaxPending: number;
  };
  readonly webSocket: {
    /** Client messages per connection: a token bucket of `messageBurst`, refilled at `messagesPerSecond`. */
    readonly messagesPerSecond: number;
    readonly messageBurst: number;
    /** A bigger client message closes the connection with 1009. */
    readonly maxMessageBytes: number;
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
  /** How long a sign-in nonce may be used. */
  readonly siweNonceTtlSeconds: number;
  readonly siweDomains: readonly string[];
  readonly rateLimits: { readonly apiKey: number; readonly session: number; readonly ip: number };
  readonly signIn: {
    /** `POST /auth/verify` per client IP per minute, on top of the per-IP request limit. */
    readonly perIpPerMinute: number;
    /** Live sessions per wallet address; a new one ends the oldest. */
    readonly sessionsPerAddress: number;
  };
  readonly bodyLimitBytes: number;
  /** Request line and headers together; Node's HTTP parser refuses more (400). */
  readonly headerLimitBytes: number;
  /** When set, `GET /metrics` requires `Authorization: Bearer <token>`. Secret: never logged. */
  readonly metricsToken: string | null;
  /** `ferry deploy` only: deploys the contracts and owns the apps until they are wired and locked. Secret. */
  readonly deployerKey: `0x${string}` | null;
  /** `ferry worker` only: the port its own `GET /metrics` listens on; null serves none. */
  readonly metricsPort: number | null;
  readonly expirySweepMs: number;
  /** How long an Idempotency-Key's stored response is replayed; the expiry sweep deletes older ones. */
  readonly idempotencyTtlSeconds: number;
  readonly worker: {
    readonly enabled: boolean;
    readonly pollMs: number;
    /** How long a worker holds an order; a crashed worker's orders are picked up after it. */
    readonly leaseMs: number;
    /** Sends deposit, settle and refund transactions. Secret: never logged. */
    readonly relayerKey: `0x${string}` | null;
    /** Signs fill attestations; the messenger contract trusts its address. Secret: never logged. */
    readonly attesterKey: `0x${string}` | null;
    /** Test-only crash points (FERRY_FAULT_INJECT), see src/process/fault-injector.ts. */
    readonly faultInject: readonly string[];
  };
}

/** Settings Ferry refuses to start with: the same environment fails the same way, so it is not retryable. */
export class ConfigError extends FerryError {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`, { retryable: false });
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Every environment variable Ferry reads, in the order `ferry start --help` lists them. An unset or empty
 * variable takes its default. Add a setting here, then use it in loadConfig below.
 */
export const SETTINGS = {
  HOST: text('127.0.0.1', 'interface the API listens on (0.0.0.0 in a container)'),
  PORT: int(8080, 0, 65535, 'API port (0 picks a free port)'),
  DATA_DIR: text(
    './data',
    'folder of the default SQLite file, the devnets and chains.json; a relative path is taken from the Ferry folder',
  ),
  DATABASE_URL: text(
    null,
    'sqlite:<path> or postgres://…; a relative SQLite path is taken from the Ferry folder',
    {
      shown: 'sqlite:<DATA_DIR>/ferry.sqlite',
      check: (raw) =>
        /^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(raw)
          ? null
          : 'must start with sqlite: or postgres://',
    },
  ),
  CHAIN_REGISTRY: text(null, 'chain registry JSON file; unset starts the two local devnets', {
    shown: 'unset (local devnets)',
  }),
  DEVNET_PORT_A: int(8545, 1, 65535, 'RPC port of devnet-a (without CHAIN_REGISTRY)'),
  DEVNET_PORT_B: int(8546, 1, 65535, 'RPC port of devnet-b (without CHAIN_REGISTRY)'),
  DEVNET_BLOCK_TIME: int(
    0,
    0,
    3600,
    'seconds between devnet blocks after deployment (0: mine each tx at once)',
  ),
  DEVNET_MESSENGER: oneOf(
    ['layerzero', 'attester'] as const,
    'layerzero',
    'how the devnets prove fills: LayerZero V2 with a local relay, or the attester key',
  ),
  LOG_LEVEL: oneOf(LOG_LEVELS, 'info', 'log verbosity; request logs are at debug'),
  LOG_FORMAT: oneOf(
    LOG_FORMATS,
    'auto',
    'log lines: JSON, or readable; auto is readable on a terminal, JSON otherwise',
  ),
  REDIS_URL: text(null, 'Redis shared by several instances (rate limits, stream counts, notices)', {
    check: (raw) => (/^rediss?:\/\//.test(raw) ? null : 'must start with redis://'),
  }),
  REDIS_KEY_PREFIX: text('ferry:', 'prefix of every Redis key and channel'),
  STREAM_LIMIT: int(3, 1, 1000, 'concurrent SSE streams, and separately WebSockets, per client'),
  STREAM_HEARTBEAT_MS: int(15_000, 10, 300_000, 'SSE heartbeat and WebSocket ping interval'),
  STREAM_REPLAY_MAX_EVENTS: int(10_000, 1, 1_000_000, 'missed events an SSE reconnect may replay'),
  STREAM_POLL_MS: int(500, 10, 60_000, 'fallback poll of the event log'),
  STREAM_MAX_BUFFER_BYTES: int(
    1_048_576,
    16_384,
    1_073_741_824,
    'unsent bytes after which a stream client is cut off',
  ),
  STREAM_REPLAY_MAX_PENDING: int(
    10_000,
    100,
    1_000_000,
    'live events held for an SSE client during its replay before it is cut off',
  ),
  WS_MESSAGES_PER_SECOND: int(20, 1, 10_000, 'WebSocket client messages per second per connection'),
  WS_MESSAGE_BURST: int(50, 1, 100_000, 'WebSocket client messages allowed in a burst'),
  WS_MAX_MESSAGE_BYTES: int(16_384, 256, 1_048_576, 'largest WebSocket client message (close 1009 beyond)'),
  BODY_LIMIT_BYTES: int(65_536, 1024, 16_777_216, 'largest request body (413 PAYLOAD_TOO_LARGE beyond)'),
  HEADER_LIMIT_BYTES: int(16_384, 1024, 1_048_576, 'largest request line and headers together (400 beyond)'),
  TRUST_PROXY: trustProxySetting(),
  QUOTE_REQUEST_TTL_SECONDS: int(120, 5, 86_400, 'how long a quote request stays open'),
  BALANCE_CACHE_MS: int(1000, 0, 60_000, 'reuse of a covering balance reading (0: read every time)'),
  QUOTE_VALIDITY_SECONDS: int(60, 10, 600, 'quote validity when the LP sends no validFor'),
  OPEN_WINDOW_SECONDS: int(600, 60, 86_400, 'deposit window after the quote ends'),
  FILL_WINDOW_SECONDS: int(1800, 60, 7 * 86_400, 'fill window after the deposit deadline'),
  MAX_QUOTE_PREMIUM_BPS: int(1000, 0, 1_000_000, 'most a quote may pay above the input amount, in bps'),
  CHAIN_CLOCK_REFRESH_MS: int(5000, 100, 300_000, "how often each chain's latest block time is read"),
  SESSION_TTL_SECONDS: int(86_400, 60, 30 * 86_400, 'lifetime of a Sign-In with Ethereum session'),
  SIWE_NONCE_TTL_SECONDS: int(600, 10, 86_400, 'how long a sign-in nonce may be used'),
  SIWE_DOMAINS: text(null, 'comma-separated domains accepted in sign-in messages', {
    shown: '<HOST>:<PORT>,localhost:<PORT>',
  }),
  RATE_LIMIT_API_KEY: int(100, 1, 1_000_000, 'requests per minute per API key'),
  RATE_LIMIT_SESSION: int(60, 1, 1_000_000, 'requests per minute per session'),
  RATE_LIMIT_IP: int(120, 1, 1_000_000, 'requests per minute per IP without credentials'),
  RATE_LIMIT_SIGN_IN: int(10, 1, 1_000_000, 'POST /auth/verify per minute per client IP'),
  SESSIONS_PER_ADDRESS: int(5, 1, 1000, 'live sign-in sessions per address (a new one ends the oldest)'),
  EXPIRY_SWEEP_MS: int(1000, 50, 60_000, 'interval of the expiry sweep'),
  IDEMPOTENCY_TTL_SECONDS: int(86_400, 60, 30 * 86_400, 'how long an Idempotency-Key replays its response'),
  WORKER: optionalBool(
    'run the settlement worker inside ferry start (production: run ferry worker apart)',
    'on with the devnets, off with CHAIN_REGISTRY',
  ),
  WORKER_POLL_MS: int(500, 20, 60_000, 'how often the worker looks for orders to move'),
  WORKER_LEASE_MS: int(30_000, 500, 600_000, 'how long a worker holds an order before another may take it'),
  RELAYER_PRIVATE_KEY: privateKey(
    'sends deposit, settle and refund transactions (required with CHAIN_REGISTRY; not the attester key)',
    'devnets: anvil account 5',
  ),
  ATTESTER_PRIVATE_KEY: privateKey(
    'signs fill attestations (required with CHAIN_REGISTRY)',
    'devnets: anvil account 1',
  ),
  DEPLOYER_PRIVATE_KEY: privateKey(
    "ferry deploy only: deploys Ferry's contracts and wires (then locks) its LayerZero apps",
    'unset',
  ),
  METRICS_TOKEN: text(null, 'when set, GET /metrics requires Authorization: Bearer <token>', {
    shown: 'unset (open)',
  }),
  METRICS_PORT: text(null, 'ferry worker only: port of its own GET /metrics (unset: none)', {
    check: (raw) =>
      /^\d{1,5}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 65535
        ? null
        : `must be an integer from 1 to 65535, got "${raw}"`,
  }),
  FERRY_FAULT_INJECT: text('', 'test only: comma-separated crash points', { shown: 'none' }),
} as const;

type SettingValues = {
  -readonly [K in keyof typeof SETTINGS]: (typeof SETTINGS)[K] extends Setting<infer T> ? T : never;
};

/** `ferry start --help`'s list of settings, one line each, from SETTINGS. */
export function describeSettings(): string {
  const rows = Object.entries(SETTINGS).map(([name, s]) => [`${name}=${s.shown}`, s.doc] as const);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, doc]) => `  ${left.padEnd(width)}${doc}`).join('\n');
}

/** The Ferry folder (where its package.json is): relative paths in settings are taken from here. */
export const PROJECT_ROOT = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'config')))
      return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** The one rule for relative paths in settings: from the Ferry folder, whatever folder a command runs in. */
export const resolveFromProject = (p: string): string => path.resolve(PROJECT_ROOT, p);

/**
 * Parses the environment. A missing value takes its default; an invalid one is collected so that the
 * operator sees every problem at once, and start is refused.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const v = {} as Record<string, unknown>;
  for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      v[name] = setting.fallback;
      continue;
    }
    const parsed = setting.parse(raw);
    // A problem may start with `=value` ("TRUST_PROXY=true is refused"); otherwise a space follows the name.
    if ('problem' in parsed)
      problems.push(`${name}${parsed.problem.startsWith('=') ? '' : ' '}${parsed.problem}`);
    v[name] = 'value' in parsed ? parsed.value : setting.fallback;
  }
  const s = v as SettingValues;
  const list = (raw: string) =>
    raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);

  const dataDir = resolveFromProject(s.DATA_DIR);
  const config: Config = {
    host: s.HOST,
    port: s.PORT,
    databaseUrl: s.DATABASE_URL
      ? resolveSqlitePath(s.DATABASE_URL)
      : `sqlite:${path.join(dataDir, 'ferry.sqlite')}`,
    dataDir,
    chainRegistryPath: s.CHAIN_REGISTRY ? resolveFromProject(s.CHAIN_REGISTRY) : null,
    devnetPorts: [s.DEVNET_PORT_A, s.DEVNET_PORT_B],
    devnetBlockTime: s.DEVNET_BLOCK_TIME,
    devnetMessenger: s.DEVNET_MESSENGER,
    logLevel: s.LOG_LEVEL,
    logFormat: s.LOG_FORMAT,
    redisUrl: s.REDIS_URL,
    redisKeyPrefix: s.REDIS_KEY_PREFIX,
    streams: {
      maxPerClient: s.STREAM_LIMIT,
      heartbeatMs: s.STREAM_HEARTBEAT_MS,
      replayMaxEvents: s.STREAM_REPLAY_MAX_EVENTS,
      maxBufferBytes: s.STREAM_MAX_BUFFER_BYTES,
      pollMs: s.STREAM_POLL_MS,
      replayMaxPending: s.STREAM_REPLAY_MAX_PENDING,
    },
    webSocket: {
      messagesPerSecond: s.WS_MESSAGES_PER_SECOND,
      messageBurst: s.WS_MESSAGE_BURST,
      maxMessageBytes: s.WS_MAX_MESSAGE_BYTES,
    },
    trustProxy: s.TRUST_PROXY,
    quoteRequestTtlSeconds: s.QUOTE_REQUEST_TTL_SECONDS,
    balanceCacheMs: s.BALANCE_CACHE_MS,
    quoteValiditySeconds: s.QUOTE_VALIDITY_SECONDS,
    openWindowSeconds: s.OPEN_WINDOW_SECONDS,
    fillWindowSeconds: s.FILL_WINDOW_SECONDS,
    maxQuotePremiumBps: s.MAX_QUOTE_PREMIUM_BPS,
    chainClockRefreshMs: s.CHAIN_CLOCK_REFRESH_MS,
    sessionTtlSeconds: s.SESSION_TTL_SECONDS,
    siweNonceTtlSeconds: s.SIWE_NONCE_TTL_SECONDS,
    siweDomains: list(s.SIWE_DOMAINS ?? `${s.HOST}:${s.PORT},localhost:${s.PORT}`),
    rateLimits: { apiKey: s.RATE_LIMIT_API_KEY, session: s.RATE_LIMIT_SESSION, ip: s.RATE_LIMIT_IP },
    signIn: {
      perIpPerMinute: s.RATE_LIMIT_SIGN_IN,
      sessionsPerAddress: s.SESSIONS_PER_ADDRESS,
    },
    bodyLimitBytes: s.BODY_LIMIT_BYTES,
    headerLimitBytes: s.HEADER_LIMIT_BYTES,
    metricsToken: s.METRICS_TOKEN,
    deployerKey: s.DEPLOYER_PRIVATE_KEY,
    metricsPort: s.METRICS_PORT === null ? null : Number(s.METRICS_PORT),
    expirySweepMs: s.EXPIRY_SWEEP_MS,
    idempotencyTtlSeconds: s.IDEMPOTENCY_TTL_SECONDS,
    worker: {
      // With a registry of real chains (production) the API runs alone unless asked: workers hold the relayer key
      // and run as their own processes (`ferry worker`); Ferry's own devnets keep everything in one process.
      enabled: s.WORKER ?? !s.CHAIN_REGISTRY,
      pollMs: s.WORKER_POLL_MS,
      leaseMs: s.WORKER_LEASE_MS,
      relayerKey: s.RELAYER_PRIVATE_KEY,
      attesterKey: s.ATTESTER_PRIVATE_KEY,
      faultInject: list(s.FERRY_FAULT_INJECT),
    },
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** `sqlite:relative/file` is taken from the Ferry folder, like DATA_DIR; other URLs are unchanged. */
function resolveSqlitePath(url: string): string {
  if (!url.startsWith('sqlite:') || url === 'sqlite::memory:') return url;
  return `sqlite:${resolveFromProject(url.slice('sqlite:'.length))}`;
}

/** The database URL with any password masked, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}
