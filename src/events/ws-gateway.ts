import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { ErrorCode, ErrorDetail } from '../domain/app-error.ts';
import { CHANNELS, type Channel, channelsOf } from '../domain/events.ts';
import { FerryError } from '../domain/ferry-error.ts';
import type { Principal } from '../domain/principal.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { StoredEvent } from '../store/engine/events-store.ts';
import type { EventFanout } from './event-fanout.ts';
import { eventWire } from './stream-event.ts';

/** Close codes, documented in docs/events.md. */
export const WS_CLOSE = {
  goingAway: 1001,
  /** The client sent messages faster than the limit. */
  policyViolation: 1008,
  tooSlow: 1013,
  /** The connection's credential ended: logout, session expiry or cap, API key revoked. */
  credentialEnded: 4001,
} as const;

/** Client messages per connection (WS_MESSAGES_PER_SECOND, WS_MESSAGE_BURST): a token bucket. */
export interface MessageRate {
  readonly messagesPerSecond: number;
  readonly messageBurst: number;
}

/** True while the connection is within its message rate; each call spends one message. */
function messageBucket({ messagesPerSecond, messageBurst }: MessageRate): () => boolean {
  let tokens = messageBurst;
  let refilledAt = performance.now();
  return () => {
    const now = performance.now();
    tokens = Math.min(messageBurst, tokens + ((now - refilledAt) / 1000) * messagesPerSecond);
    refilledAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

type Message = { op: 'ping' } | { op: 'subscribe' | 'unsubscribe'; channels: Channel[] };

/** A client message refused (invalid, or a channel it may not open): answered with an error frame. */
class MessageError extends FerryError<readonly ErrorDetail[]> {
  override readonly name = 'MessageError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    details: readonly ErrorDetail[],
  ) {
    // The same message on the same connection is refused the same way.
    super(message, { details, retryable: false });
  }
}

function invalid(path: string, message: string): MessageError {
  return new MessageError('VALIDATION_ERROR', `the message is invalid: ${path} ${message}`, [
    { path, message },
  ]);
}

// Each event is serialised and UTF-8 encoded once per channel, then shared by every subscribed socket.
const messages = new WeakMap<StoredEvent, Map<string, Buffer>>();

function eventMessage(event: StoredEvent, channel: string): Buffer {
  let byChannel = messages.get(event);
  if (!byChannel) {
    byChannel = new Map();
    messages.set(event, byChannel);
  }
  let text = byChannel.get(channel);
  if (text === undefined) {
    text = Buffer.from(JSON.stringify({ op: 'event', channel, event: eventWire(event) }));
    byChannel.set(channel, text);
  }
  return text;
}

/** Parses one client message; every problem names its field the way the REST API does (`message.<field>`). */
export function parseMessage(text: string): Message {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('message', 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('message', 'must be a JSON object');
  }
  const record = value as Record<string, unknown>;
  const op = record.op;
  if (op !== 'ping' && op !== 'subscribe' && op !== 'unsubscribe') {
    throw invalid('message.op', 'must be one of subscribe, unsubscribe, ping');
  }
  const allowed = op === 'ping' ? ['op'] : ['op', 'channels'];
  for (const field of Object.keys(record)) {
    if (!allowed.includes(field)) throw invalid(`message.${field}`, 'is not a known field');
  }
  if (op === 'ping') return { op };
  const channels = record.channels;
  if (!Array.isArray(channels) || channels.length === 0 || channels.length > CHANNELS.length) {
    throw invalid('message.channels', `must be an array of 1 to ${CHANNELS.length} channel names`);
  }
  channels.forEach((channel, index) => {
    if (!CHANNELS.includes(channel as Channel)) {
      throw invalid(`message.channels.${index}`, `must be one of ${CHANNELS.join(', ')}`);
    }
  });
  return { op, channels: channels as Channel[] };
}

/** Who may subscribe where: `public` is open to all; the others need an account (and the right type). */
function checkAccess(principal: Principal | null, channels: readonly Channel[]): void {
  channels.forEach((channel, index) => {
    if (channel === 'public') return;
    const path = `message.channels.${index}`;
    if (!principal) {
      throw new MessageError('UNAUTHORIZED', `the ${channel} channel needs an API key or a session`, [
        { path, message: 'requires authentication' },
      ]);
    }
    if (channel === 'quoteRequests' && principal.accountType !== 'liquidityProvider') {
      throw new MessageError('FORBIDDEN', 'the quoteRequests channel is for liquidity providers', [
        { path, message: `account type ${principal.accountType} may not subscribe` },
      ]);
    }
  });
}

/** The event catalogue says which channels carry an event; `account` then narrows to the accounts it names. */
function matches(channel: Channel, event: StoredEvent, principal: Principal | null): boolean {
  if (!channelsOf(event.type).includes(channel)) return false;
  return channel !== 'account' || (principal !== null && event.accountIds.includes(principal.accountId));
}

/**
 * One WebSocket client: its subscriptions, its event frames, and the protocol ping that finds dead peers.
 * Credentials were checked before the upgrade; a bad message gets an error frame and the connection stays.
 * Messages beyond the rate limit get one `RATE_LIMITED` error frame, then close 1008.
 */
export function serveWebSocket(
  socket: WebSocket,
  options: {
    principal: Principal | null;
    fanout: EventFanout;
    heartbeatMs: number;
    maxBufferBytes: number;
    messageRate: MessageRate;
    log: FastifyBaseLogger;
    metrics: FerryMetrics;
  },
): void {
  const { principal, log, metrics } = options;
  metrics.openStreams.inc({ kind: 'ws' });
  const subscribed = new Set<Channel>();
  const send = (payload: unknown) => socket.send(JSON.stringify(payload));

  const unsubscribe = options.fanout.subscribe((event) => {
    if (socket.readyState !== socket.OPEN) return;
    for (const channel of CHANNELS) {
      if (!subscribed.has(channel) || !matches(channel, event, principal)) continue;
      // Bytes, but a text frame: clients read JSON text as before.
      socket.send(eventMessage(event, channel), { binary: false });
    }
    if (socket.bufferedAmount > options.maxBufferBytes) {
      log.info('WebSocket client cut off: send buffer over the bound');
      socket.close(WS_CLOSE.tooSlow, 'too slow: send buffer over the bound');
      // A client that does not read will not read the close frame either.
      setTimeout(() => socket.terminate(), 5000).unref();
    }
  });

  let alive = true;
  socket.on('pong', () => {
    alive = true;
  });
  const heartbeat = setInterval(() => {
    if (!alive) return socket.terminate();
    alive = false;
    socket.ping();
  }, options.heartbeatMs);
  heartbeat.unref();

  socket.on('close', () => {
    metrics.openStreams.dec({ kind: 'ws' });
    clearInterval(heartbeat);
    unsubscribe();
  });

  const withinRate = messageBucket(options.messageRate);
  let limited = false;
  socket.on('message', (raw, isBinary) => {
    if (limited) return;
    if (!withinRate()) {
      // One answer, then the connection ends: a client this fast is not reading its replies anyway.
      limited = true;
      metrics.rateLimitRefusals.inc({ limit: 'ws-message' });
      const { messagesPerSecond, messageBurst } = options.messageRate;
      const message = `more than ${messagesPerSecond} messages per second (burst ${messageBurst})`;
      send({ op: 'error', code: 'RATE_LIMITED', error: message, details: [{ path: 'message', message }] });
      socket.close(WS_CLOSE.policyViolation, 'message rate limit exceeded');
      setTimeout(() => socket.terminate(), 5000).unref();
      return;
    }
    try {
      if (isBinary) throw invalid('message', 'must be a text frame holding JSON');
      const message = parseMessage(raw.toString());
      if (message.op === 'ping') return send({ op: 'pong' });
      if (message.op === 'subscribe') {
        checkAccess(principal, message.channels);
        for (const channel of message.channels) subscribed.add(channel);
        return send({ op: 'subscribed', channels: [...subscribed] });
      }
      for (const channel of message.channels) subscribed.delete(channel);
      return send({ op: 'unsubscribed', channels: [...subscribed] });
    } catch (error) {
      if (!(error instanceof MessageError)) throw error;
      send({ op: 'error', code: error.code, error: error.message, details: error.details });
    }
  });
}
