import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import {
  readFinalEventsAfter,
  replayWindowExceeded,
  type StoredEvent,
} from '../store/engine/events-store.ts';
import type { EventFanout } from './event-fanout.ts';
import { eventWire } from './stream-event.ts';

const REPLAY_PAGE = 500;

export interface SseOptions {
  readonly res: ServerResponse;
  /** Headers already decided for the response (rate-limit headers), written with the stream's own. */
  readonly headers: Record<string, string | number | string[]>;
  readonly fanout: EventFanout;
  readonly database: FerryDatabase;
  /** From Last-Event-ID (or ?lastEventId): replay what came after it. Null: live events only. */
  readonly lastEventId: number | null;
  readonly replayMaxEvents: number;
  /** Live events held while the replay is written; a client this far behind is cut off like a slow one. */
  readonly replayMaxPending: number;
  readonly heartbeatMs: number;
  readonly maxBufferBytes: number;
  readonly log: FastifyBaseLogger;
  readonly metrics: FerryMetrics;
}

export interface SseStream {
  /** Sends the final `shutdown` event and ends the response. */
  shutdown(): void;
  /** Sends the final `session.ended` event and ends the response: the stream's credential ended. */
  credentialEnded(): void;
  readonly closed: Promise<void>;
}

// The fan-out hands the same event object to every client: its frame is serialised and UTF-8 encoded once, not
// once per client (with a thousand clients, encoding the same string a thousand times was a visible cost).
const frames = new WeakMap<StoredEvent, Buffer>();

function frame(event: StoredEvent): Buffer {
  let bytes = frames.get(event);
  if (bytes === undefined) {
    bytes = Buffer.from(
      `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(eventWire(event))}\n\n`,
    );
    frames.set(event, bytes);
  }
  return bytes;
}

/**
 * One server-sent-events client. Live events come from the shared fanout; a reconnecting client first gets the
 * events it missed straight from the log. Live events arriving meanwhile wait, and every event is sent at most
 * once and in id order (`lastSent` filters the overlap between replay and live).
 */
export function openSseStream(options: SseOptions): SseStream {
  const { res, fanout, log } = options;
  let lastSent = 0;
  let pending: StoredEvent[] | null = [];
  let ended = false;

  const closed = new Promise<void>((resolve) => res.once('close', resolve));

  function cutOff(reason: string): void {
    if (ended) return;
    ended = true;
    log.info({ reason }, 'SSE client cut off');
    res.destroy();
  }

  function send(event: StoredEvent): void {
    if (ended || event.id <= lastSent) return;
    res.write(frame(event));
    lastSent = event.id;
    // The socket buffers what the client has not read yet; past the bound, drop the client rather than the memory.
    if (res.writableLength > options.maxBufferBytes) cutOff('slow client: send buffer over the bound');
  }

  const unsubscribe = fanout.subscribe((event) => {
    if (pending === null) return send(event);
    pending.push(event);
    if (pending.length > options.replayMaxPending) cutOff('too many live events during replay');
  });
  const livePosition = fanout.position;

  res.writeHead(200, {
    ...options.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Reverse proxies (nginx) would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  // The first bytes make the client's `open` fire; `retry` sets its reconnect delay.
  res.write('retry: 2000\n: connected\n\n');

  const heartbeat = setInterval(() => {
    if (!ended) res.write(': heartbeat\n\n');
  }, options.heartbeatMs);
  heartbeat.unref();
  options.metrics.openStreams.inc({ kind: 'sse' });

  void closed.then(() => {
    options.metrics.openStreams.dec({ kind: 'sse' });
    ended = true;
    clearInterval(heartbeat);
    unsubscribe();
  });

  function waitForDrain(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  async function replay(after: number): Promise<void> {
    if (await replayWindowExceeded(options.database.db, after, options.replayMaxEvents)) {
      // The client resumes from the live position; what it missed must be fetched over the REST API.
      lastSent = livePosition;
      const data = {
        lastEventId: after,
        resumedAfter: livePosition,
        reason: 'the missed events are no longer replayable',
      };
      res.write(`id: ${livePosition}\nevent: stream.reset\ndata: ${JSON.stringify(data)}\n\n`);
      return;
    }
    lastSent = after;
    for (;;) {
      // Only final events, like the tailer: a replay never passes an id that a running transaction may still fill.
      const { events: batch } = await readFinalEventsAfter(options.database.db, lastSent, REPLAY_PAGE);
      for (const event of batch) {
        if (ended) return;
        // Replay waits for the client instead of cutting it off: its size is bounded by the window.
        if (!res.write(frame(event))) await waitForDrain();
        lastSent = event.id;
      }
      if (batch.length < REPLAY_PAGE) return;
    }
  }

  void (async () => {
    if (options.lastEventId === null) lastSent = livePosition;
    else await replay(options.lastEventId);
    const held = pending ?? [];
    pending = null;
    for (const event of held) send(event);
  })().catch((error: unknown) => {
    log.warn({ err: error }, 'SSE replay failed; closing the stream so the client reconnects');
    cutOff('replay failed');
  });

  function finish(event: string, reason: string): void {
    if (ended) return;
    ended = true;
    res.end(`event: ${event}\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  return {
    shutdown: () => finish('shutdown', 'the server is shutting down; reconnect'),
    credentialEnded: () =>
      finish('session.ended', 'the credential was logged out, expired or revoked; sign in again'),
    closed,
  };
}
