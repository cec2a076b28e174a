import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcFaultProxyOptions {
  /** The RPC behind the proxy (an anvil). */
  upstream: string;
  /** An eth_getLogs spanning more blocks than this is answered with a JSON-RPC "range too large" error. */
  maxLogRange?: number;
  /**
   * Every `dropEvery`-th request goes unanswered, alternately by closing the connection and by a 503. A retry of
   * the request just dropped is never dropped again, so a client that retries once always gets through.
   */
  dropEvery?: number;
  /** Added before every request is forwarded. */
  latencyMs?: number;
}

export interface LogsCall {
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
  /** `range`: refused as too large; `dropped`: never forwarded; `answered`: forwarded and answered. */
  readonly outcome: 'range' | 'dropped' | 'answered';
}

export interface RpcFaultProxy {
  readonly url: string;
  /** Every eth_getLogs seen, in order of arrival. */
  readonly logs: LogsCall[];
  readonly stats: { requests: number; dropped: number };
  close(): Promise<void>;
}

interface RpcRequest {
  id?: unknown;
  method?: string;
  params?: unknown[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A JSON-RPC proxy on 127.0.0.1 that plays a public RPC's bad days in front of an anvil: it refuses wide
 * eth_getLogs ranges, drops requests and adds latency. Tests point a registry's `rpcUrl` at it.
 */
export async function startRpcFaultProxy(options: RpcFaultProxyOptions): Promise<RpcFaultProxy> {
  const logs: LogsCall[] = [];
  const stats = { requests: 0, dropped: 0 };
  let lastDropped: string | null = null;

  async function forward(body: string): Promise<{ status: number; text: string }> {
    const res = await fetch(options.upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, text: await res.text() };
  }

  async function blockNumberOf(tag: unknown): Promise<bigint> {
    if (typeof tag === 'string' && tag.startsWith('0x')) return BigInt(tag);
    const { text } = await forward(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    );
    return BigInt((JSON.parse(text) as { result: string }).result);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
    // Numbered on arrival: requests in flight together must not share a number (and all be dropped).
    const n = ++stats.requests;
    if (options.latencyMs) await sleep(options.latencyMs);
    const parsed = JSON.parse(body) as RpcRequest | RpcRequest[];
    const single = Array.isArray(parsed) ? null : parsed;
    const key = single ? `${single.method}:${JSON.stringify(single.params)}` : body;
    const filter = single?.method === 'eth_getLogs' ? (single.params?.[0] as Record<string, unknown>) : null;
    const range = filter
      ? {
          from: await blockNumberOf(filter.fromBlock ?? 'latest'),
          to: await blockNumberOf(filter.toBlock ?? 'latest'),
        }
      : null;

    const drop = options.dropEvery && n % options.dropEvery === 0 && key !== lastDropped;
    if (drop) {
      lastDropped = key;
      stats.dropped++;
      if (range) logs.push({ fromBlock: range.from, toBlock: range.to, outcome: 'dropped' });
      if (stats.dropped % 2 === 1) {
        req.socket.destroy();
      } else {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      }
      return;
    }
    if (range && options.maxLogRange && range.to - range.from + 1n > BigInt(options.maxLogRange)) {
      logs.push({ fromBlock: range.from, toBlock: range.to, outcome: 'range' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: single?.id ?? null,
          error: { code: -32602, message: `eth_getLogs is limited to a ${options.maxLogRange} block range` },
        }),
      );
      return;
    }
    if (range) logs.push({ fromBlock: range.from, toBlock: range.to, outcome: 'answered' });
    const answer = await forward(body);
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(502).end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    logs,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
