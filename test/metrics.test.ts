import fs from 'node:fs';
import net from 'node:net';
import { pino } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerProcess } from '../src/app.ts';
import { createChainRegistry, type RegistryFile } from '../src/chains/chain-registry.ts';
import { publicClientFor } from '../src/chains/viem-client.ts';
import { ANVIL_KEYS, DEVNET_ATTESTER_KEY, DEVNET_RELAYER_KEY } from '../src/devnet/devnet.ts';
import { createMetrics } from '../src/metrics/ferry-metrics.ts';
import { createShutdownRegistry } from '../src/process/shutdown-registry.ts';
import { approveEscrow, fillSwap } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { WsClient, wsUrl } from './support/stream-clients.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const TOKEN = 'metrics-test-token-0123456789';
const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

/** The value of one sample in Prometheus text, 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(/,(?=[a-zA-Z_]+=")/);
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      metricsToken: TOKEN,
      rateLimits: { apiKey: 100_000, session: 60, ip: 3 },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function scrape(): Promise<string> {
    const response = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  }

  it('needs the METRICS_TOKEN bearer when it is set: 401 with the error body without it', async () => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token' },
      { authorization: TOKEN },
    ];
    for (const headers of refused) {
      const response = await fetch(`${h.baseUrl}/metrics`, { headers });
      expect(response.status).toBe(401);
      const body = (await response.json()) as { code: string; details: { path: string }[] };
      expect(body.code).toBe('UNAUTHORIZED');
      expect(body.details[0]?.path).toBe('headers.authorization');
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    }
    expect(await scrape()).toContain('# TYPE ferry_http_requests_total counter');
  });

  it('counts a whole swap: HTTP by route, orders by status, settlement steps, chain actions', async () => {
    const swapRoute = { method: 'POST', route: '/api/v1/swaps', status: '201' };
    const before = await scrape();
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    const input = 2_000_000n;
    const output = 1_990_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    await fillSwap(h, lpWallet, swap, output);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    const after = await scrape();

    expect(sample(after, 'ferry_http_requests_total', swapRoute)).toBe(
      sample(before, 'ferry_http_requests_total', swapRoute) + 1,
    );
    // The route pattern, never the raw URL with the order id in it.
    expect(after).toContain('route="/api/v1/orders/:id"');
    expect(after).not.toContain(swap.orderId);
    expect(sample(after, 'ferry_http_request_duration_seconds_count', swapRoute)).toBeGreaterThan(
      sample(before, 'ferry_http_request_duration_seconds_count', swapRoute),
    );

    expect(sample(before, 'ferry_orders', { status: 'completed' })).toBe(0);
    expect(sample(after, 'ferry_orders', { status: 'completed' })).toBe(1);
    expect(after).toContain('ferry_orders{status="refunded"} 0');

    for (const decision of ['deposit', 'follow']) {
      expect(sample(after, 'ferry_settlement_step_duration_seconds_count', { decision })).toBeGreaterThan(0);
    }
    // On LayerZero devnets the filler proves its own fill: Ferry's one chain action is the deposit.
    expect(sample(after, 'ferry_chain_actions_sent_total', { chain: h.chainA, kind: 'deposit' })).toBe(1);
    expect(sample(after, 'ferry_settlement_messages_total', { status: 'delivered' })).toBe(1);
    expect(sample(after, 'ferry_fill_to_delivery_seconds_count')).toBe(1);
    expect(after).toContain('# TYPE ferry_chain_fee_replacements_total counter');
    expect(after).toContain('# TYPE ferry_rpc_errors_total counter');
    expect(sample(after, 'ferry_event_tail_lag_events')).toBeGreaterThanOrEqual(0);
    expect(after).toContain('# TYPE ferry_event_tail_lag_events gauge');
  });

  it('serves the worker-only process on METRICS_PORT, with the same token rule', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const log = pino({ level: 'silent' });
    const shutdown = createShutdownRegistry(log);
    const worker = { ...h.config.worker, relayerKey: DEVNET_RELAYER_KEY, attesterKey: DEVNET_ATTESTER_KEY };
    try {
      await createWorkerProcess({
        config: { ...h.config, worker, metricsPort: port },
        registry: h.registry,
        log,
        shutdown,
      });
      const url = `http://127.0.0.1:${port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(200);
      const text = await response.text();
      // The order gauge reads the shared database: the swap above is there.
      expect(sample(text, 'ferry_orders', { status: 'completed' })).toBe(1);
      expect(text).toContain('# TYPE ferry_settlement_step_duration_seconds histogram');
    } finally {
      await shutdown.close();
    }
  });

  it('counts RPC errors by chain: an unreachable node (transport), an error answer (response)', async () => {
    const metrics = createMetrics();
    const file = JSON.parse(fs.readFileSync(h.registryFile, 'utf8')) as RegistryFile;
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const unreachable = createChainRegistry({
      chains: file.chains.map((chain) => ({ ...chain, rpcUrl: `http://127.0.0.1:${closedPort}` })),
    });
    await expect(
      publicClientFor(unreachable, h.chainA, 2000, metrics.rpcErrors).getBlockNumber(),
    ).rejects.toThrow();
    // An unknown method: the node answers, with a JSON-RPC error.
    const live = publicClientFor(h.registry, h.chainB, 2000, metrics.rpcErrors);
    await expect(live.request({ method: 'ferry_noSuchMethod' as 'eth_chainId' })).rejects.toThrow();
    expect(await live.getBlockNumber()).toBeGreaterThan(0n);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'ferry_rpc_errors_total', { chain: h.chainA, kind: 'transport' })).toBe(1);
    expect(sample(text, 'ferry_rpc_errors_total', { chain: h.chainB, kind: 'response' })).toBe(1);
    expect(sample(text, 'ferry_rpc_errors_total', { chain: h.chainB, kind: 'transport' })).toBe(0);
  });

  it('counts open streams while they are open', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${h.baseUrl}/api/public/stream`, { signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(sample(await scrape(), 'ferry_open_streams', { kind: 'sse' })).toBe(1);
    controller.abort();
    await stream.body?.cancel().catch(() => {});
    await expect.poll(async () => sample(await scrape(), 'ferry_open_streams', { kind: 'sse' })).toBe(0);
  });

  it('counts an open WebSocket, and its close for the message rate limit', async () => {
    const client = await WsClient.connect(wsUrl(h.baseUrl));
    const open = await scrape();
    expect(sample(open, 'ferry_open_streams', { kind: 'ws' })).toBe(1);
    expect(sample(open, 'ferry_rate_limit_refusals_total', { limit: 'ws-message' })).toBe(0);
    for (let i = 0; i < 200; i++) client.send({ op: 'ping' });
    expect((await client.closed).code).toBe(1008);
    await expect
      .poll(async () => {
        const text = await scrape();
        return [
          sample(text, 'ferry_open_streams', { kind: 'ws' }),
          sample(text, 'ferry_rate_limit_refusals_total', { limit: 'ws-message' }),
        ];
      })
      .toEqual([0, 1]);
  });

  it('counts a rate-limit refusal (429)', async () => {
    const before = sample(await scrape(), 'ferry_rate_limit_refusals_total', { limit: 'request' });
    let refused = 0;
    for (let i = 0; i < 5; i++) {
      if ((await h.http('GET', '/api/public/orders')).status === 429) refused++;
    }
    expect(refused).toBeGreaterThan(0);
    const after = await scrape();
    expect(sample(after, 'ferry_rate_limit_refusals_total', { limit: 'request' })).toBe(before + refused);
    expect(
      sample(after, 'ferry_http_requests_total', {
        method: 'GET',
        route: '/api/public/orders',
        status: '429',
      }),
    ).toBe(refused);
  });
});
