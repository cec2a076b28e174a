/**
 * The WebSocket under subscribeWs: the `ws` package in Node (it can send the credential in a header), the
 * browser's own elsewhere, and the FerryApiErrors a refused upgrade, an error frame or a close become.
 */
import { FerryApiError, type FerryErrorCode } from './ferry-error.js';
import type { ErrorDetail, FerryEvent, WsChannel } from './types.js';

/** Close code the server sends when the connection's credential ends (logout, revocation, session expiry). */
const CREDENTIAL_ENDED = 4001;

/** The subset of a WebSocket this helper uses (the `ws` package's, or a browser's). */
export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: (event: never) => void): void;
}
type SocketCtor = new (url: string, options?: { headers: Record<string, string> }) => SocketLike;

interface NodeResponse {
  statusCode?: number;
  headers: Record<string, string | string[] | undefined>;
  setEncoding(encoding: string): void;
  on(event: 'data', cb: (chunk: string) => void): void;
  on(event: 'end', cb: () => void): void;
}

export interface WsFrame {
  op?: string;
  channel?: WsChannel;
  event?: FerryEvent;
  code?: FerryErrorCode;
  error?: string;
  details?: ErrorDetail[];
}

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

/** Opens a socket to `url` with the credential: in a header when the implementation can, else in the query. */
export async function openSocket(
  url: string,
  credentials: { apiKey?: string; sessionToken?: string },
): Promise<SocketLike> {
  const { Ctor, headers: canSendHeaders } = await socketConstructor();
  const credential = credentials.apiKey ?? credentials.sessionToken;
  const headers: Record<string, string> = {};
  if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
  else if (credentials.sessionToken) headers.authorization = `Bearer ${credentials.sessionToken}`;
  const target = !canSendHeaders && credential ? `${url}?token=${encodeURIComponent(credential)}` : url;
  return canSendHeaders ? new Ctor(target, { headers }) : new Ctor(target);
}

/** Drops the socket at once where the implementation can (`ws`), else closes it with `code`. */
export function terminate(ws: SocketLike, code: number, reason: string): void {
  const t = ws as unknown as { terminate?(): void };
  if (t.terminate) t.terminate();
  else ws.close(code, reason);
}

/**
 * `ws` reports a refused upgrade (401, 429, 503) with the HTTP response: `onRefused` gets Ferry's error read
 * from its body, once the socket is terminated. Browsers only close the socket.
 */
export function onRefusedUpgrade(
  ws: SocketLike,
  onStart: () => void,
  onRefused: (error: FerryApiError, status: number) => void,
): void {
  const nodeSocket = ws as unknown as {
    on?(event: 'unexpected-response', cb: (req: unknown, res: NodeResponse) => void): void;
  };
  nodeSocket.on?.('unexpected-response', (_req, res) => {
    onStart();
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
      onRefused(error, status);
    });
  });
}

export function parseFrame(data: unknown): WsFrame | null {
  try {
    return JSON.parse(String(data));
  } catch {
    return null;
  }
}

/** An error frame as an error, and whether it is final: a refused channel stays refused on every reconnect. */
export function errorOfFrame(frame: WsFrame): { error: FerryApiError; fatal: boolean } {
  const error = new FerryApiError({
    status: 0,
    code: frame.code ?? 'UNEXPECTED_RESPONSE',
    summary: frame.error ?? 'error frame',
    details: frame.details ?? [],
    request: 'WS /ws',
  });
  const fatal =
    frame.code === 'UNAUTHORIZED' || frame.code === 'FORBIDDEN' || frame.code === 'VALIDATION_ERROR';
  return { error, fatal };
}

/**
 * A close the client did not ask for, as an error. Close 4001 is final (logout, revocation or expiry: the same
 * credential would be refused on every reconnect); any other close reconnects.
 */
export function errorOfClose(event: { code?: number; reason?: string }): {
  error: FerryApiError;
  fatal: boolean;
} {
  if (event.code === CREDENTIAL_ENDED) {
    return {
      error: new FerryApiError({
        status: 401,
        code: 'UNAUTHORIZED',
        summary: `the credential ended (${event.reason || 'logged out, expired or revoked'})`,
        request: 'GET /ws',
      }),
      fatal: true,
    };
  }
  return {
    error: new FerryApiError({
      status: 0,
      code: 'NETWORK_ERROR',
      summary: `the WebSocket closed (${event.code ?? 'no code'}${event.reason ? `: ${event.reason}` : ''})`,
      request: 'GET /ws',
    }),
    fatal: false,
  };
}
