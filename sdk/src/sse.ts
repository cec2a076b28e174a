import { errorFromResponse, type FerryApiError, networkError } from './ferry-error.js';
import { createFrameParser, type Frame } from './sse-frames.js';
import type { FerryEvent } from './types.js';

export interface SubscribeEventsOptions {
  /** Ferry's base URL; the stream is `GET {baseUrl}/api/public/stream`. */
  baseUrl: string;
  /** Called once per event, in id order, never twice for one id (also across reconnects). */
  onEvent(event: FerryEvent): void;
  /** Resume after this event id (replays what came after it, within the server's replay window). */
  lastEventId?: number;
  /**
   * The server could not replay what was missed (too far behind, or an id from another deployment): reload the
   * state you care about over the REST API. Events continue after `resumedAfter`.
   */
  onReset?(info: { lastEventId: number | null; resumedAfter: number; reason: string }): void;
  /** A connection attempt failed or a stream broke; the subscription reconnects by itself unless closed. */
  onError?(error: FerryApiError): void;
  /** Each time a stream is open (first connect and every reconnect). */
  onOpen?(): void;
  /** First reconnect delay in ms (default: the server's `retry:` hint, else 1000); doubles on repeated failures. */
  reconnectDelayMs?: number;
  /** Upper bound of the reconnect delay in ms (default 30,000). */
  maxReconnectDelayMs?: number;
  fetch?: typeof globalThis.fetch;
}

export interface EventSubscription {
  /** Stops the subscription and closes the stream. */
  close(): void;
  /** The id of the last event delivered (or skipped by a reset): resume from it later with `lastEventId`. */
  readonly lastEventId: number | undefined;
  /** True while a stream is open. */
  readonly connected: boolean;
}

/**
 * Subscribes to Ferry's public server-sent events. Reconnects by itself (with backoff) after a dropped stream, a
 * server shutdown or a refused connection, sending `Last-Event-ID` so that nothing is lost or repeated.
 * Works wherever fetch streams responses (Node 18+, browsers).
 */
export function subscribeEvents(options: SubscribeEventsOptions): EventSubscription {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/api/public/stream`;
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxDelay = options.maxReconnectDelayMs ?? 30_000;
  let lastEventId = options.lastEventId;
  let serverRetryMs: number | undefined;
  let closed = false;
  let connected = false;
  let controller: AbortController | null = null;
  let wakeSleep: (() => void) | null = null;

  const report = (error: FerryApiError) => {
    if (!closed) options.onError?.(error);
  };

  function dispatch(frame: Frame): void {
    if (frame.event === 'shutdown') return; // The server is going away; the loop reconnects.
    if (frame.event === 'stream.reset') {
      const info = JSON.parse(frame.data) as {
        lastEventId: number | null;
        resumedAfter: number;
        reason: string;
      };
      lastEventId = info.resumedAfter;
      options.onReset?.(info);
      return;
    }
    if (frame.data === '') return;
    const event = JSON.parse(frame.data) as FerryEvent;
    // The server sends every id once and in order; this guard keeps that promise across any reconnect race.
    if (lastEventId !== undefined && event.id <= lastEventId) return;
    lastEventId = event.id;
    options.onEvent(event);
  }

  /** Reads one open stream until it ends; returns whether any bytes came (a healthy connection). */
  async function read(body: ReadableStream<Uint8Array>): Promise<void> {
    // A TextDecoder over the byte reader rather than pipeThrough(TextDecoderStream): the DOM and Node typings
    // of that pair disagree, and consumers type-check this package under either.
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const parser = createFrameParser(dispatch, (ms) => {
      serverRetryMs = ms;
    });
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.push(decoder.decode(value, { stream: true }));
    }
  }

  async function sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeSleep = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wakeSleep = null;
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!closed) {
      controller = new AbortController();
      let retryAfterMs = 0;
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
        const response = await doFetch(url, { headers, signal: controller.signal });
        if (!response.ok || !response.body) {
          const text = await response.text().catch(() => '');
          let body: unknown = null;
          try {
            body = JSON.parse(text);
          } catch {}
          const error = errorFromResponse(response, body, 'GET /api/public/stream');
          retryAfterMs = (error.retryAfter ?? 0) * 1000;
          failures++;
          report(error);
        } else {
          connected = true;
          failures = 0;
          options.onOpen?.();
          await read(response.body);
          if (!closed) report(networkError(new Error('the stream ended'), 'GET /api/public/stream'));
        }
      } catch (error) {
        failures++;
        report(networkError(error, 'GET /api/public/stream'));
      } finally {
        connected = false;
      }
      if (closed) break;
      const base = options.reconnectDelayMs ?? serverRetryMs ?? 1000;
      const delay = Math.min(maxDelay, Math.max(retryAfterMs, base * 2 ** Math.max(0, failures - 1)));
      await sleep(delay);
    }
  }

  void run();

  return {
    close() {
      closed = true;
      controller?.abort();
      wakeSleep?.();
    },
    get lastEventId() {
      return lastEventId;
    },
    get connected() {
      return connected;
    },
  };
}
