import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FerryError } from '../domain/ferry-error.ts';
import { WEBHOOK_RETRY_DELAYS_MS } from '../domain/webhook-rules.ts';
import type { LogFormatSetting } from '../process/log-format.ts';
import type { Setting } from './setting-parsers.ts';
import { SETTINGS } from './settings.ts';

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
    /** Concurrent SSE streams, and separately WebSocket streams, per account (all its keys and sessions) or anonymous IP. */
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
  /** After the quote's end, how long only the quoted LP may fill (then anyone may): EXCLUSIVITY_SECONDS. */
  readonly exclusivitySeconds: number;
  /** A quote's output, in the input token's decimals, may exceed the input by at most this many basis points. */
  readonly maxQuotePremiumBps: number;
  /** Ferry's fee on every order, in basis points of the input (0–100); in the typed data, paid at settlement. */
  readonly protocolFeeBps: number;
  /**
   * Where the escrows pay the fee: checked at start against every escrow's immutable `feeRecipient` when the fee is
   * on. Null: whatever the escrows name (the devnets' own fee address).
   */
  readonly feeRecipient: `0x${string}` | null;
  /** How often each chain's latest block time is read, to compute deadlines on the chain's clock. */
  readonly chainClockRefreshMs: number;
  readonly sessionTtlSeconds: number;
  /** How long a sign-in nonce may be used. */
  readonly siweNonceTtlSeconds: number;
  readonly siweDomains: readonly string[];
  /**
   * Requests per minute. An account's API keys and sessions share one counter: a request is refused once it passes
   * the limit of the credential it came with (`apiKey` or `session`). `ip` is for requests without credentials.
   */
  readonly rateLimits: { readonly apiKey: number; readonly session: number; readonly ip: number };
  readonly signIn: {
    /** `POST /auth/verify` per client IP per minute, on top of the per-IP request limit. */
    readonly perIpPerMinute: number;
    /** Verified sign-ins per address per minute, from whatever IPs: one address cannot churn sessions faster. */
    readonly perAddressPerMinute: number;
    /** Live sessions per wallet address; a new one ends the oldest. */
    readonly sessionsPerAddress: number;
  };
  /**
   * A money mover whose orders made the relayer's deposits or refunds revert on chain `limit` times within
   * `windowSeconds` has its new swaps refused (429 RATE_LIMITED) until the oldest of them leaves the window.
   */
  readonly relayerReverts: { readonly limit: number; readonly windowSeconds: number };
  readonly bodyLimitBytes: number;
  /** Request line and headers together; Node's HTTP parser refuses more (400). */
  readonly headerLimitBytes: number;
  /** When set, `GET /metrics` requires `Authorization: Bearer <token>`. Secret: never logged. */
  readonly metricsToken: string | null;
  /** Serve `GET /metrics` without a token on any HOST (metrics-access.ts has the rule without it). */
  readonly metricsPublic: boolean;
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
  readonly webhooks: {
    /** Also `http` and loopback/private addresses (on by default with the built-in devnets). */
    readonly allowPrivateUrls: boolean;
    /** The wait after each failed attempt; the built-in schedule unless a test shortens it. */
    readonly retryDelaysMs: readonly number[];
    /** Fallback poll of the event log and of due retries. */
    readonly pollMs: number;
  };
}

/** Settings Ferry refuses to start with: the same environment fails the same way, so it is not retryable. */
export class ConfigError extends FerryError {
  override readonly name = 'ConfigError';
  /** `message`: instead of the list under "Invalid configuration" (the chain registry's own wording, one line). */
  constructor(
    readonly problems: readonly string[],
    options: { readonly message?: string; readonly cause?: unknown } = {},
  ) {
    super(options.message ?? `Invalid configuration:\n  - ${problems.join('\n  - ')}`, {
      cause: options.cause,
      retryable: false,
    });
  }
}

type Env = Readonly<Record<string, string | undefined>>;

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
    exclusivitySeconds: s.EXCLUSIVITY_SECONDS,
    maxQuotePremiumBps: s.MAX_QUOTE_PREMIUM_BPS,
    protocolFeeBps: s.PROTOCOL_FEE_BPS,
    feeRecipient: s.FEE_RECIPIENT === null ? null : (s.FEE_RECIPIENT as `0x${string}`),
    chainClockRefreshMs: s.CHAIN_CLOCK_REFRESH_MS,
    sessionTtlSeconds: s.SESSION_TTL_SECONDS,
    siweNonceTtlSeconds: s.SIWE_NONCE_TTL_SECONDS,
    siweDomains: list(s.SIWE_DOMAINS ?? `${s.HOST}:${s.PORT},localhost:${s.PORT}`),
    rateLimits: { apiKey: s.RATE_LIMIT_API_KEY, session: s.RATE_LIMIT_SESSION, ip: s.RATE_LIMIT_IP },
    signIn: {
      perIpPerMinute: s.RATE_LIMIT_SIGN_IN,
      perAddressPerMinute: s.RATE_LIMIT_SIGN_IN_ADDRESS,
      sessionsPerAddress: s.SESSIONS_PER_ADDRESS,
    },
    relayerReverts: { limit: s.RELAYER_REVERT_LIMIT, windowSeconds: s.RELAYER_REVERT_WINDOW_SECONDS },
    bodyLimitBytes: s.BODY_LIMIT_BYTES,
    headerLimitBytes: s.HEADER_LIMIT_BYTES,
    metricsToken: s.METRICS_TOKEN,
    metricsPublic: s.METRICS_PUBLIC,
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
    webhooks: {
      // The same rule as the devnet keys: without CHAIN_REGISTRY Ferry runs locally, receivers included.
      allowPrivateUrls:
        s.WEBHOOK_ALLOW_PRIVATE_URLS === null
          ? !s.CHAIN_REGISTRY
          : s.WEBHOOK_ALLOW_PRIVATE_URLS === 'true' || s.WEBHOOK_ALLOW_PRIVATE_URLS === '1',
      retryDelaysMs: s.WEBHOOK_RETRY_SCHEDULE_MS
        ? list(s.WEBHOOK_RETRY_SCHEDULE_MS).map(Number)
        : WEBHOOK_RETRY_DELAYS_MS,
      pollMs: s.WEBHOOK_POLL_MS,
    },
    ...overrides,
  };
  if (s.METRICS_PUBLIC && s.METRICS_TOKEN !== null)
    problems.push(
      'METRICS_PUBLIC=true and METRICS_TOKEN are both set: unset one (a token closes GET /metrics)',
    );
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
