import { LOG_FORMATS } from '../process/log-format.ts';
import { bool, int, oneOf, optionalBool, privateKey, text, trustProxySetting } from './setting-parsers.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Every environment variable Ferry reads, in the order `ferry start --help` lists them. An unset or empty
 * variable takes its default. Add a setting here, then use it in loadConfig (config.ts).
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
  STREAM_LIMIT: int(
    3,
    1,
    1000,
    'concurrent SSE streams, and separately WebSockets, per account (all its keys and sessions) or anonymous IP',
  ),
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
  EXCLUSIVITY_SECONDS: int(60, 0, 86_400, "the quoted LP's exclusive fill window after the quote's end"),
  MAX_QUOTE_PREMIUM_BPS: int(1000, 0, 1_000_000, 'most a quote may pay above the input amount, in bps'),
  PROTOCOL_FEE_BPS: int(0, 0, 100, "Ferry's fee on every order in bps of the input, paid at settlement"),
  FEE_RECIPIENT: text(
    null,
    "the escrows' fee recipient; checked against each escrow at start when the fee is on",
    {
      shown: "unset (the escrows' own)",
      check: (raw) => (/^0x[0-9a-fA-F]{40}$/.test(raw) ? null : 'must be a 0x-prefixed 20-byte address'),
    },
  ),
  CHAIN_CLOCK_REFRESH_MS: int(5000, 100, 300_000, "how often each chain's latest block time is read"),
  SESSION_TTL_SECONDS: int(86_400, 60, 30 * 86_400, 'lifetime of a Sign-In with Ethereum session'),
  SIWE_NONCE_TTL_SECONDS: int(600, 10, 86_400, 'how long a sign-in nonce may be used'),
  SIWE_DOMAINS: text(null, 'comma-separated domains accepted in sign-in messages', {
    shown: '<HOST>:<PORT>,localhost:<PORT>',
  }),
  RATE_LIMIT_API_KEY: int(
    100,
    1,
    1_000_000,
    "requests per minute per account through an API key (the account's keys and sessions share one counter)",
  ),
  RATE_LIMIT_SESSION: int(
    60,
    1,
    1_000_000,
    'requests per minute per account through a session (all sessions of one address share one counter)',
  ),
  RATE_LIMIT_IP: int(120, 1, 1_000_000, 'requests per minute per IP without credentials'),
  RELAYER_REVERT_LIMIT: int(
    3,
    1,
    1_000_000,
    "reverted relayer deposits of one money mover's undeposited orders within the window before its new swaps are refused (429)",
  ),
  RELAYER_REVERT_WINDOW_SECONDS: int(
    86_400,
    60,
    31_536_000,
    'how long a reverted relayer transaction counts against its money mover',
  ),
  RATE_LIMIT_SIGN_IN: int(10, 1, 1_000_000, 'POST /auth/verify per minute per client IP'),
  RATE_LIMIT_SIGN_IN_ADDRESS: int(10, 1, 1_000_000, 'sign-ins per minute per address, from any IP'),
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
  METRICS_TOKEN: text(
    null,
    'GET /metrics requires Authorization: Bearer <token>; required unless HOST is loopback or METRICS_PUBLIC=true',
    { shown: 'unset (open on loopback only)' },
  ),
  METRICS_PUBLIC: bool(false, 'serve GET /metrics without a token on a HOST others can reach'),
  METRICS_PORT: text(null, 'ferry worker only: port of its own GET /metrics (unset: none)', {
    check: (raw) =>
      /^\d{1,5}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 65535
        ? null
        : `must be an integer from 1 to 65535, got "${raw}"`,
  }),
  FERRY_FAULT_INJECT: text('', 'test only: comma-separated crash points', { shown: 'none' }),
  WEBHOOK_ALLOW_PRIVATE_URLS: text(null, 'webhooks may use http and loopback/private addresses', {
    shown: 'true with the local devnets, else false',
    check: (raw) => (/^(true|false|1|0)$/.test(raw) ? null : `must be true or false, got "${raw}"`),
  }),
  WEBHOOK_POLL_MS: int(1000, 10, 60_000, 'how often webhook dispatch looks for new events and due retries'),
  WEBHOOK_RETRY_SCHEDULE_MS: text('', 'test only: comma-separated waits (ms) replacing the retry schedule', {
    shown: 'built-in (5 s … 4 h, 26.7 h)',
    check: (raw) =>
      /^\d{1,9}(,\d{1,9})*$/.test(raw) ? null : `must be comma-separated milliseconds, got "${raw}"`,
  }),
} as const;
