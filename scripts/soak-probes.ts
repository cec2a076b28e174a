/**
 * What scripts/soak.ts measures with: free ports, the server's RSS, HTTP with bookkeeping, the event stream, the
 * database's view of orders and events, and percentiles.
 */
import fs from 'node:fs';
import net from 'node:net';
import { sql } from 'kysely';
import { createDatabase } from '../src/store/engine/database.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return kb ? Number(kb[1]) * 1024 : 0;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The soak's HTTP client: every request counted by status, its latency kept, 5xx and transport errors noted. */
export function createSoakHttp(baseUrl: string) {
  const stats = {
    requests: 0,
    byStatus: new Map<number, number>(),
    serverErrors: [] as string[],
    transportErrors: [] as string[],
    latencies: [] as number[],
  };

  async function api(
    method: string,
    urlPath: string,
    options: { apiKey?: string; body?: unknown } = {},
  ): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = {};
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    stats.requests++;
    try {
      const res = await fetch(`${baseUrl}${urlPath}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      stats.latencies.push(performance.now() - started);
      stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
      if (res.status >= 500)
        stats.serverErrors.push(`${method} ${urlPath} -> ${res.status} ${text.slice(0, 300)}`);
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: res.status, body };
    } catch (error) {
      stats.transportErrors.push(`${method} ${urlPath}: ${String(error)}`);
      return { status: 0, body: null };
    }
  }
  return { stats, api };
}

export interface SseEvent {
  id: number;
  type: string;
}
/** What the soak's stream delivered: every event's id and type, and the first sign of trouble. */
export interface StreamLog {
  readonly events: SseEvent[];
  error: string | null;
}

/** Follows GET /api/public/stream into `log` until `signal` aborts it; resolves once the stream is open. */
export async function followStream(baseUrl: string, log: StreamLog, signal: AbortSignal): Promise<void> {
  const res = await fetch(`${baseUrl}/api/public/stream`, {
    headers: { accept: 'text/event-stream' },
    signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`GET /api/public/stream -> ${res.status}`);
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let id: number | null = null;
          let type = 'message';
          for (const line of block.split('\n')) {
            if (line.startsWith('id:')) id = Number(line.slice(3).trim());
            else if (line.startsWith('event:')) type = line.slice(6).trim();
          }
          if (id !== null) log.events.push({ id, type });
          if (type === 'stream.reset' || type === 'shutdown') log.error ??= `stream sent ${type}`;
        }
      }
      if (!signal.aborted) log.error ??= 'the stream ended early';
    } catch (error) {
      if (!signal.aborted) log.error ??= `the stream failed: ${String(error)}`;
    }
  })();
}

export async function orderStatuses(
  databaseUrl: string,
): Promise<Map<string, { status: string; failure: string | null }>> {
  const database = createDatabase({ databaseUrl });
  try {
    const rows = await database.db.selectFrom('orders').select(['id', 'status', 'failure_reason']).execute();
    return new Map(rows.map((r) => [r.id, { status: r.status, failure: r.failure_reason }]));
  } finally {
    await database.destroy();
  }
}

export async function eventLog(databaseUrl: string): Promise<{ id: number; type: string }[]> {
  const database = createDatabase({ databaseUrl });
  try {
    const { rows } = await sql<{ id: number; type: string }>`select id, type from events order by id`.execute(
      database.db,
    );
    return rows.map((r) => ({ id: Number(r.id), type: r.type }));
  } finally {
    await database.destroy();
  }
}
