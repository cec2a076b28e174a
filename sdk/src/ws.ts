import { FerryApiError } from './ferry-error.js';
import type { FerryEvent, WsChannel } from './types.js';
import {
  errorOfClose,
  errorOfFrame,
  onRefusedUpgrade,
  openSocket,
  parseFrame,
  type SocketLike,
  terminate,
  type WsFrame,
} from './ws-socket.js';

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

/**
 * Application-level pings on an open socket every `pingMs`: a missing pong within a whole interval means the
 * connection is dead even if TCP has not noticed, and `onDead` is told.
 */
function startPinging(ws: SocketLike, pingMs: number, onDead: () => void) {
  let awaitingPong = false;
  const interval = setInterval(() => {
    if (awaitingPong) {
      onDead();
      return;
    }
    awaitingPong = true;
    ws.send(JSON.stringify({ op: 'ping' }));
  }, pingMs);
  return {
    pong() {
      awaitingPong = false;
    },
    stop() {
      clearInterval(interval);
    },
  };
}

const noPong = () =>
  new FerryApiError({
    status: 0,
    code: 'NETWORK_ERROR',
    summary: 'no pong: reconnecting',
    request: 'GET /ws',
  });

/** What one connection tells its subscription. */
interface SocketEvents {
  open(): void;
  frame(frame: WsFrame): void;
  /** The upgrade was refused (`ws` only); the close that follows says so with `refused`. */
  refused(error: FerryApiError, status: number): void;
  /** No pong within a ping interval; the socket is terminated right after. */
  dead(): void;
  close(event: { code?: number; reason?: string }, refused: boolean): void;
}

/** Subscribes `channels` once `ws` opens, pings it, and reports what happens on it. */
function attachSocket(ws: SocketLike, channels: WsChannel[], pingMs: number, on: SocketEvents) {
  let pinger: ReturnType<typeof startPinging> | null = null;
  let refused = false;
  const stopPing = () => {
    pinger?.stop();
    pinger = null;
  };
  onRefusedUpgrade(
    ws,
    () => {
      refused = true;
    },
    on.refused,
  );
  ws.addEventListener('open', () => {
    on.open();
    ws.send(JSON.stringify({ op: 'subscribe', channels }));
    stopPing();
    pinger = startPinging(ws, pingMs, () => {
      on.dead();
      terminate(ws, 4000, 'no pong');
    });
  });
  ws.addEventListener('message', (event: { data: unknown }) => {
    const frame = parseFrame(event.data);
    if (!frame) return;
    if (frame.op === 'pong') pinger?.pong();
    on.frame(frame);
  });
  ws.addEventListener('close', (event: { code?: number; reason?: string }) => {
    stopPing();
    on.close(event, refused);
  });
  ws.addEventListener('error', () => {
    // The close event follows and reconnects.
  });
  return { stopPing };
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
  let status: WsStatus = 'connecting';
  let closed = false;
  let socket: SocketLike | null = null;
  let connection: { stopPing(): void } | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
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
  function stop(): void {
    closed = true;
    connection?.stopPing();
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

  function onFrame(frame: WsFrame): void {
    if (frame.op === 'pong') pongs++;
    else if (frame.op === 'subscribed') {
      failures = 0;
      setStatus('subscribed');
      if (!settled) {
        settled = true;
        resolveReady();
      }
    } else if (frame.op === 'event' && frame.event && frame.channel) {
      options.onEvent(frame.event, frame.channel);
    } else if (frame.op === 'error') {
      const { error, fatal } = errorOfFrame(frame);
      fail(error, fatal);
    }
  }

  async function connect(): Promise<void> {
    if (closed) return;
    setStatus('connecting');
    const ws = await openSocket(url, options);
    socket = ws;
    connection = attachSocket(ws, options.channels, pingMs, {
      open: () => setStatus('open'),
      frame: onFrame,
      refused(error, status) {
        if (status === 401 || status === 403 || status === 400) fail(error, true);
        else {
          fail(error, false);
          scheduleReconnect();
        }
      },
      dead: () => fail(noPong(), false),
      close(event, refused) {
        if (socket === ws) socket = null;
        if (closed || refused) return;
        const { error, fatal } = errorOfClose(event);
        fail(error, fatal);
        if (!fatal) scheduleReconnect();
      },
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
