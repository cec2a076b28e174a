import { FerryApiError, type FerryErrorCode } from './ferry-error.js';
import type { ErrorDetail, FerryEvent, WsChannel } from './types.js';

/** Close code the server sends when the connection's credential ends (logout, revocation, session expiry). */
const CREDENTIAL_ENDED = 4001;

export type WsStatus = 'connecting' | 'open' | 'subscribed' | 'closed';

export interface WsSubscribeOptions {
  /** Ferry's base URL (http or https); the socket is `{ws|wss}://host/ws`. */
  baseUrl: string;
  /** API key (`quoteRequests` needs a liquidity provider's). */
  apiKey?: string;
  /** Session token from Sign-In with Ethereum. */
  sessionToken?: string;
  /** `public` (anyone), `quoteRequests` (liquidity providers: new open requests), `account` (your own records). */
  channels: WsChannel[];
  /** Every event frame, with the channel it came on (an event on two subscribed channels comes twice). */
  onEvent(event: FerryEvent, channel: WsChannel): void;
  /**
   * A refused connection (401, 429…), an error frame (e.g. FORBIDDEN for a channel), or a dropped socket.
   * 401, channel refusals and a close 4001 (the credential ended: logout, revocation, session expiry; reported as
   * 401 `UNAUTHORIZED`) stop the subscription (reconnecting cannot fix them); the rest reconnect.
   */
  onError?(error: FerryApiError): void;
  /** Status changes: `subscribed` after every (re)connect once the server confirmed the channels. */
  onStatus?(status: WsStatus): void;
  /** Application-level ping interval in ms (default 15,000): a missing pong within it drops and reconnects. */
  pingIntervalMs?: number;
  /** First reconnect delay in ms (default 1000); doubles on repeated failures up to maxReconnectDelayMs. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

export interface WsSubscription {
  /** Resolves once the channels are first confirmed; rejects if the server refuses them or 401s. */
  readonly ready: Promise<void>;
  /** Closes the socket and stops reconnecting. */
  close(): void;
  readonly status: WsStatus;
  /** Pongs received so far (each answers one of the helper's pings). */
  readonly pongs: number;
}

/** The subset of a WebSocket this helper uses (the `ws` package's, or a browser's). */
interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: (event: never) => void): void;
}
type SocketCtor = new (url: string, options?: { headers: Record<string, string> }) => SocketLike;

async function socketConstructor(): Promise<{ Ctor: SocketCtor; headers: boolean }> {
  const Global = (globalThis as { WebSocket?: SocketCtor }).WebSocket;
  const inNode = typeof process !== 'undefined' && Boolean(process.versions?.node);
  // In Node the `ws` package, which can send the credential in a header; in a browser its own WebSocket.
  if (inNode) {
    try {
      const mod = (await import('ws')) as unknown as { WebSocket: SocketCtor };
      return { Ctor: mod.WebSocket, headers: true };
    } catch {}
  }
  if (!Global) throw new Error('no WebSocket implementation: install the `ws` package');
  return { Ctor: Global, headers: false };
}

/**
 * Subscribes to Ferry's WebSocket. Reconnects with backoff when the socket drops (or stops answering pings),
 * subscribes the channels again on every connection, and pings to find dead connections. The WebSocket has no
 * replay: catch up over the REST API after a reconnect (onStatus `subscribed`), or use subscribeEvents for that.
 */
export function subscribeWs(options: WsSubscribeOptions): WsSubscription {
  const base = new URL(options.baseUrl);
  base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  const url = `${base.protocol}//${base.host}/ws`;
  const pingMs = options.pingIntervalMs ?? 15_000;
  const maxDelay = options.maxReconnectDelayMs ?? 30_000;
  const credential = options.apiKey ?? options.sessionToken;
  let status: WsStatus = 'connecting';
  let closed = false;
  let socket: SocketLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pingTimer: ReturnType<typeof setInterval> | null = null;
  let failures = 0;
  let pongs = 0;
  let settled = false;
  let resolveReady!: () => void;
  let rejectReady!: (error: FerryApiError) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => {});

  const setStatus = (next: WsStatus) => {
    if (status === next) return;
    status = next;
    options.onStatus?.(next);
  };
  const fail = (error: FerryApiError, fatal: boolean) => {
    if (!closed) options.onError?.(error);
    if (fatal) {
      if (!settled) {
        settled = true;
        rejectReady(error);
      }
      stop();
    }
  };
  const stopPing = () => {
    if (pingTimer) clearInterval(pingTimer);
    pingTimer = null;
  };
  function stop(): void {
    closed = true;
    stopPing();
    if (timer) clearTimeout(timer);
    socket?.close(1000, 'client closed');
    setStatus('closed');
  }

  function scheduleReconnect(): void {
    if (closed) return;
    const delay = Math.min(maxDelay, (options.reconnectDelayMs ?? 1000) * 2 ** Math.min(failures, 10));
    failures++;
    setStatus('connecting');
    timer = setTimeout(() => void connect(), delay);
  }

  async function connect(): Promise<void> {
    if (closed) return;
    setStatus('connecting');
    const { Ctor, headers: canSendHeaders } = await socketConstructor();
    const headers: Record<string, string> = {};
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    else if (options.sessionToken) headers.authorization = `Bearer ${options.sessionToken}`;
    const target = !canSendHeaders && credential ? `${url}?token=${encodeURIComponent(credential)}` : url;
    const ws = canSendHeaders ? new Ctor(target, { headers }) : new Ctor(target);
    socket = ws;
    let awaitingPong = false;
    let refused = false;

    // `ws` reports a refused upgrade (401, 429, 503) with the HTTP response; read Ferry's error body from it.
    const nodeSocket = ws as unknown as {
      on?(event: 'unexpected-response', cb: (req: unknown, res: NodeResponse) => void): void;
    };
    nodeSocket.on?.('unexpected-response', (_req, res) => {
      refused = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        let body: { error?: string; code?: FerryErrorCode; details?: ErrorDetail[] } = {};
        try {
          body = JSON.parse(text);
        } catch {}
        const retry = Number(res.headers['retry-after']);
        const error = new FerryApiError({
          status,
          code: body.code ?? 'UNEXPECTED_RESPONSE',
          summary: body.error ?? `WebSocket upgrade refused with ${status}`,
          details: body.details ?? [],
          ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: retry } : {}),
          request: 'GET /ws',
        });
        (ws as unknown as { terminate(): void }).terminate();
        if (status === 401 || status === 403 || status === 400) fail(error, true);
        else {
          fail(error, false);
          scheduleReconnect();
        }
      });
    });

    ws.addEventListener('open', () => {
      setStatus('open');
      ws.send(JSON.stringify({ op: 'subscribe', channels: options.channels }));
      awaitingPong = false;
      stopPing();
      pingTimer = setInterval(() => {
        if (awaitingPong) {
          // No pong within a whole interval: the connection is dead even if TCP has not noticed.
          fail(
            new FerryApiError({
              status: 0,
              code: 'NETWORK_ERROR',
              summary: 'no pong: reconnecting',
              request: 'GET /ws',
            }),
            false,
          );
          const t = ws as unknown as { terminate?(): void };
          if (t.terminate) t.terminate();
          else ws.close(4000, 'no pong');
          return;
        }
        awaitingPong = true;
        ws.send(JSON.stringify({ op: 'ping' }));
      }, pingMs);
    });

    ws.addEventListener('message', (event: { data: unknown }) => {
      let frame: {
        op?: string;
        channel?: WsChannel;
        event?: FerryEvent;
        code?: FerryErrorCode;
        error?: string;
        details?: ErrorDetail[];
      };
      try {
        frame = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (frame.op === 'pong') {
        awaitingPong = false;
        pongs++;
      } else if (frame.op === 'subscribed') {
        failures = 0;
        setStatus('subscribed');
        if (!settled) {
          settled = true;
          resolveReady();
        }
      } else if (frame.op === 'event' && frame.event && frame.channel) {
        options.onEvent(frame.event, frame.channel);
      } else if (frame.op === 'error') {
        const error = new FerryApiError({
          status: 0,
          code: frame.code ?? 'UNEXPECTED_RESPONSE',
          summary: frame.error ?? 'error frame',
          details: frame.details ?? [],
          request: 'WS /ws',
        });
        // A refused channel stays refused on every reconnect: stop rather than loop.
        fail(
          error,
          frame.code === 'UNAUTHORIZED' || frame.code === 'FORBIDDEN' || frame.code === 'VALIDATION_ERROR',
        );
      }
    });

    ws.addEventListener('close', (event: { code?: number; reason?: string }) => {
      stopPing();
      if (socket === ws) socket = null;
      if (closed || refused) return;
      if (event.code === CREDENTIAL_ENDED) {
        // Logout, revocation or expiry: the same credential would be refused on every reconnect.
        fail(
          new FerryApiError({
            status: 401,
            code: 'UNAUTHORIZED',
            summary: `the credential ended (${event.reason || 'logged out, expired or revoked'})`,
            request: 'GET /ws',
          }),
          true,
        );
        return;
      }
      fail(
        new FerryApiError({
          status: 0,
          code: 'NETWORK_ERROR',
          summary: `the WebSocket closed (${event.code ?? 'no code'}${event.reason ? `: ${event.reason}` : ''})`,
          request: 'GET /ws',
        }),
        false,
      );
      scheduleReconnect();
    });
    ws.addEventListener('error', () => {
      // The close event follows and reconnects.
    });
  }

  void connect().catch((error: unknown) =>
    fail(new FerryApiError({ status: 0, code: 'NETWORK_ERROR', summary: String(error) }), true),
  );

  return {
    ready,
    close: stop,
    get status() {
      return status;
    },
    get pongs() {
      return pongs;
    },
  };
}

interface NodeResponse {
  statusCode?: number;
  headers: Record<string, string | string[] | undefined>;
  setEncoding(encoding: string): void;
  on(event: 'data', cb: (chunk: string) => void): void;
  on(event: 'end', cb: () => void): void;
}
