import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a cached public read (a millisecond) to a chain action waiting for its receipt (seconds). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Where a request was refused for going too fast (docs/metrics.md). */
export type RateLimitKind = 'request' | 'sign-in' | 'ws-message';

/** A gauge read when Prometheus scrapes: `read` calls `set` once per label set (one query per scrape). */
export interface ScrapedGauge<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly read: (set: (labels: Record<L, string>, value: number) => void) => Promise<void>;
}

type HttpLabel = 'method' | 'route' | 'status';
type ActionLabel = 'chain' | 'kind';

/** Every metric of one Ferry process (docs/metrics.md describes each one). */
export interface FerryMetrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<HttpLabel>;
  readonly httpDuration: Histogram<HttpLabel>;
  readonly settlementStep: Histogram<'decision'>;
  readonly settlementPasses: Counter;
  readonly settlementWakes: Counter<'source'>;
  readonly chainActionsSent: Counter<ActionLabel>;
  readonly chainActionRetries: Counter<ActionLabel>;
  readonly feeReplacements: Counter<ActionLabel>;
  readonly chainActionsCancelled: Counter<ActionLabel>;
  readonly nonceGapsRepaired: Counter<'chain'>;
  readonly settlementReverts: Counter<ActionLabel>;
  readonly settlementMessages: Counter<'status'>;
  readonly fillToDelivery: Histogram<string>;
  readonly relayerBalance: Gauge<'chain'>;
  readonly rpcErrors: Counter<ActionLabel>;
  readonly openStreams: Gauge<'kind'>;
  readonly rateLimitRefusals: Counter<'limit'>;
  readonly webhookDeliveries: Counter<'outcome'>;
  /** Registers a gauge whose values are read when Prometheus scrapes (one query per scrape, not per change). */
  collectAt<L extends string>(options: ScrapedGauge<L>): void;
}

/**
 * Every metric of one Ferry process, in a registry of its own (never prom-client's global one: tests run several
 * apps in one process). Created once by the process's wiring and handed to the parts that count; docs/metrics.md
 * lists each metric. Gauges read at scrape time (orders by status, event tail lag) are attached with `collectAt`.
 */
export function createMetrics(): FerryMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'ferry_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'ferry_http_request_duration_seconds',
      help: 'Time from receiving a request to the end of its response, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    settlementStep: new Histogram({
      name: 'ferry_settlement_step_duration_seconds',
      help: 'Time the settlement worker spent carrying out one decision for one order, by decision kind',
      labelNames: ['decision'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    settlementPasses: new Counter({
      name: 'ferry_settlement_passes_total',
      help: 'Passes of the settlement worker over the orders that need work (woken by a block, a new order or the poll)',
      registers,
    }),
    settlementWakes: new Counter({
      name: 'ferry_settlement_wakes_total',
      help: 'Times the settlement worker was woken before its poll, by source (block: a new block on a registry chain; order: a new order committed in this process; notice: a new order announced over Redis by any instance)',
      labelNames: ['source'] as const,
      registers,
    }),
    chainActionsSent: new Counter({
      name: 'ferry_chain_actions_sent_total',
      help: 'Chain actions (deposit, settle, refund) recorded and broadcast for the first time, by chain and kind',
      labelNames: ['chain', 'kind'] as const,
      registers,
    }),
    chainActionRetries: new Counter({
      name: 'ferry_chain_action_rebroadcasts_total',
      help: 'Broadcasts of an already recorded transaction again, unchanged, while it waits to be mined',
      labelNames: ['chain', 'kind'] as const,
      registers,
    }),
    feeReplacements: new Counter({
      name: 'ferry_chain_fee_replacements_total',
      help: 'Transactions replaced at the same nonce with higher fees because they were not mined in time',
      labelNames: ['chain', 'kind'] as const,
      registers,
    }),
    chainActionsCancelled: new Counter({
      name: 'ferry_chain_actions_cancelled_total',
      help: 'Chain actions no longer wanted (their order ended) whose nonce was spent on a zero-value self-transfer',
      labelNames: ['chain', 'kind'] as const,
      registers,
    }),
    nonceGapsRepaired: new Counter({
      name: 'ferry_nonce_gaps_repaired_total',
      help: "Nonce gaps found below the relayer's lowest unfinished transaction and filled with zero-value self-transfers",
      labelNames: ['chain'] as const,
      registers,
    }),
    settlementReverts: new Counter({
      name: 'ferry_settlement_reverts_total',
      help: 'Deposits, settles and refunds that reverted on chain or would revert when retried, by chain and kind',
      labelNames: ['chain', 'kind'] as const,
      registers,
    }),
    ...settlementMessageMetrics(registers),
    relayerBalance: new Gauge({
      name: 'ferry_relayer_balance_wei',
      help: "The settlement relayer's native balance per chain, in wei (read every 15 s by the process running the worker)",
      labelNames: ['chain'] as const,
      registers,
    }),
    rpcErrors: new Counter({
      name: 'ferry_rpc_errors_total',
      help: 'Failed JSON-RPC calls to a chain node, by chain and kind (transport: unreachable, timeout, HTTP error; response: the node answered with an error)',
      labelNames: ['chain', 'kind'] as const,
      registers,
    }),
    openStreams: new Gauge({
      name: 'ferry_open_streams',
      help: 'Event streams open on this instance, by kind (sse, ws)',
      labelNames: ['kind'] as const,
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'ferry_rate_limit_refusals_total',
      help: 'Requests or WebSocket messages refused by a rate limit, by limit (request, sign-in, ws-message)',
      labelNames: ['limit'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'ferry_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (delivered: 2xx; retry: failed, tried again later; failed: failed, out of retries; refused: the host resolves to a private address, nothing sent)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    collectAt<L extends string>(options: ScrapedGauge<L>): void {
      new Gauge<L>({
        name: options.name,
        help: options.help,
        labelNames: options.labelNames,
        registers,
        async collect() {
          this.reset();
          // A failed read (the database unreachable) leaves the gauge empty for this scrape, not the scrape failed.
          await options.read((labels, value) => this.set(labels as never, value)).catch(() => {});
        },
      });
    },
  };
}

/** How settlement messages move (docs/metrics.md): statuses reached, and a filler's wait to be paid. */
function settlementMessageMetrics(registers: Registry[]) {
  return {
    settlementMessages: new Counter({
      name: 'ferry_settlement_messages_total',
      help: "Orders' settlement messages reaching a status (sent, verified, delivered), as the settlement worker saw them",
      labelNames: ['status'] as const,
      registers,
    }),
    fillToDelivery: new Histogram({
      name: 'ferry_fill_to_delivery_seconds',
      help: "From a fill's block to the delivery of its proof to the escrow (chain time of both), per order",
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600],
      registers,
    }),
  };
}
