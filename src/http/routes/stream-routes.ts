import websocket from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../domain/app-error.ts';
import { CHANNELS } from '../../domain/events.ts';
import { formatBytes } from '../../domain/limit-text.ts';
import type { Principal } from '../../domain/principal.ts';
import type { Realtime } from '../../events/realtime.ts';
import { openSseStream, type SseStream } from '../../events/sse-stream.ts';
import type { StreamKind, StreamSlot } from '../../events/stream-limiter.ts';
import { serveWebSocket, WS_CLOSE } from '../../events/ws-gateway.ts';
import type { FerryMetrics } from '../../metrics/ferry-metrics.ts';
import type { AuthService } from '../../services/auth-service.ts';
import type { FerryDatabase } from '../../store/engine/database.ts';
import type { FerryApp } from '../app-types.ts';
import { budgetKey } from '../rate-limit.ts';
import { errorResponses, OPTIONAL_ACCOUNT_SECURITY, PUBLIC_SECURITY } from '../schemas/common-schemas.ts';
import '../request-context.ts';

export interface StreamRouteDeps {
  readonly config: Config;
  readonly database: FerryDatabase;
  readonly auth: AuthService;
  readonly realtime: Realtime;
  readonly isDraining: () => boolean;
  readonly metrics: FerryMetrics;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The stream slot taken before the stream opened; released when its connection closes. */
    streamSlot: StreamSlot | null;
  }
}

function parseLastEventId(request: FastifyRequest, fromQuery: number | undefined): number | null {
  // The header wins: on reconnect EventSource sends it while the URL still holds the first query value.
  const header = request.headers['last-event-id'];
  if (typeof header === 'string' && header !== '') {
    if (!/^\d{1,15}$/.test(header)) {
      throw new AppError('VALIDATION_ERROR', 'Last-Event-ID must be an event id', [
        { path: 'headers.last-event-id', message: 'must be a non-negative integer event id' },
      ]);
    }
    return Number(header);
  }
  return fromQuery ?? null;
}

/** Refuses a stream while draining or over the client's limit; otherwise holds a slot until the connection goes. */
async function takeSlot(
  deps: StreamRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: StreamKind,
): Promise<void> {
  const { config, realtime } = deps;
  if (deps.isDraining()) {
    throw new AppError('SERVICE_UNAVAILABLE', 'the server is shutting down; connect again', [], {
      'retry-after': '2',
    });
  }
  const slot = await realtime.limiter.acquire(kind, budgetKey(request));
  if (!slot) {
    const max = config.streams.maxPerClient;
    throw new AppError(
      'STREAM_LIMIT',
      `at most ${max} concurrent ${kind === 'sse' ? 'SSE' : 'WebSocket'} streams per client`,
      [
        {
          path: 'headers',
          message: `this ${request.principal ? 'account' : 'IP address'} already holds ${max} open streams`,
        },
      ],
    );
  }
  request.streamSlot = slot;
  // Freed the moment the connection goes, whichever way it goes.
  const release = () => slot.release();
  if (kind === 'sse') reply.raw.once('close', release);
  else request.raw.socket.once('close', release);
}

/** A stream opened with a credential ends with it; anonymous streams have none. */
function endWithCredential(realtime: Realtime, principal: Principal | null, end: () => void): () => void {
  return principal ? realtime.credentials.watch(principal, end) : () => {};
}

/** The WebSocket's principal: from the request's credentials, or from `?token=` (browsers cannot set headers). */
async function wsPrincipal(
  auth: AuthService,
  request: FastifyRequest,
  token: string | undefined,
): Promise<Principal | null> {
  if (request.principal) return request.principal;
  if (request.authFailure) {
    const header =
      typeof request.headers['x-api-key'] === 'string' ? 'headers.x-api-key' : 'headers.authorization';
    throw new AppError('UNAUTHORIZED', request.authFailure, [{ path: header, message: request.authFailure }]);
  }
  if (token === undefined) return null;
  // Browsers cannot set headers on a WebSocket: the token may be an API key or a session token.
  const principal = (await auth.principalFromApiKey(token)) ?? (await auth.principalFromSession(token));
  if (!principal) {
    const message = 'is not a valid API key or session token';
    throw new AppError('UNAUTHORIZED', `the token ${message}`, [{ path: 'query.token', message }]);
  }
  request.principal = principal;
  return principal;
}

export async function registerStreamRoutes(app: FerryApp, deps: StreamRouteDeps): Promise<void> {
  const sseStreams = new Set<SseStream>();

  app.decorateRequest('streamSlot', null);
  registerSseRoute(app, deps, sseStreams);

  await app.register(websocket, {
    options: { maxPayload: deps.config.webSocket.maxMessageBytes },
    // Tell every client why it is closed (1001), then stop the WebSocket server.
    preClose(done) {
      for (const client of this.websocketServer.clients)
        client.close(WS_CLOSE.goingAway, 'server shutting down');
      this.websocketServer.close(() => done());
    },
  });

  // Ends the SSE streams before the HTTP server waits for open connections.
  app.addHook('preClose', async () => {
    for (const stream of sseStreams) stream.shutdown();
  });

  registerWebSocketRoute(app, deps);
}

/** GET /api/public/stream: the event log as server-sent events; each stream is kept in `sseStreams` while open. */
function registerSseRoute(app: FerryApp, deps: StreamRouteDeps, sseStreams: Set<SseStream>): void {
  const { config, realtime } = deps;
  const { maxPerClient, replayMaxEvents, heartbeatMs } = config.streams;
  app.get(
    '/api/public/stream',
    {
      schema: {
        tags: ['Public'],
        operationId: 'streamEvents',
        security: PUBLIC_SECURITY,
        summary: 'Live events (server-sent events)',
        description:
          'Every event of the event log as it happens, public views only, no authentication. Each event has `id:` ' +
          '(increasing), `event:` (its type) and `data:` `{id, type, occurredAt, data}`. Reconnect with the ' +
          `\`Last-Event-ID\` header (or \`?lastEventId=\`) to replay what was missed, up to the last ${replayMaxEvents.toLocaleString('en-US')} events; an ` +
          `older gap gets a \`stream.reset\` event. A \`: heartbeat\` comment comes every ${heartbeatMs / 1000} s, and \`event: shutdown\` ` +
          `before the server closes the stream. At most ${maxPerClient} concurrent streams per account (all its API keys and sessions together) or anonymous IP ` +
          '(429 STREAM_LIMIT). A stream opened with a credential ends with it (logout, expiry, revocation): a final ' +
          '`session.ended` event, then the end of the response. See docs/events.md.',
        querystring: Type.Object(
          {
            lastEventId: Type.Optional(
              Type.Integer({ minimum: 0, description: 'For clients that cannot send Last-Event-ID' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'An endless text/event-stream',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          ...errorResponses(400, 429, 503),
        },
      },
      preHandler: async (request, reply) => {
        parseLastEventId(request, request.query.lastEventId);
        await takeSlot(deps, request, reply, 'sse');
      },
    },
    async (request, reply) => {
      const lastEventId = parseLastEventId(request, request.query.lastEventId);
      reply.hijack();
      const headers: Record<string, string | number | string[]> = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) headers[name] = value;
      }
      const stream = openSseStream({
        res: reply.raw,
        headers,
        fanout: realtime.fanout,
        database: deps.database,
        lastEventId,
        replayMaxEvents: config.streams.replayMaxEvents,
        replayMaxPending: config.streams.replayMaxPending,
        heartbeatMs: config.streams.heartbeatMs,
        maxBufferBytes: config.streams.maxBufferBytes,
        log: request.log,
        metrics: deps.metrics,
      });
      sseStreams.add(stream);
      const unwatch = endWithCredential(realtime, request.principal, () => stream.credentialEnded());
      void stream.closed.then(() => {
        sseStreams.delete(stream);
        unwatch();
      });
    },
  );
}

/** GET /ws: the WebSocket gateway (a plain GET without the upgrade is 400). */
function registerWebSocketRoute(app: FerryApp, deps: StreamRouteDeps): void {
  const { config, realtime } = deps;
  const { maxPerClient } = config.streams;
  const { messagesPerSecond, messageBurst, maxMessageBytes } = config.webSocket;
  app.route({
    method: 'GET',
    url: '/ws',
    schema: {
      tags: ['Public'],
      operationId: 'openWebSocket',
      security: OPTIONAL_ACCOUNT_SECURITY,
      summary: 'Live events (WebSocket)',
      description:
        'Upgrade to a WebSocket. Authenticate with x-api-key, Authorization: Bearer, or `?token=` (API key or ' +
        'session token); without credentials only the `public` channel is available. Send ' +
        `\`{"op":"subscribe","channels":[${CHANNELS.map((c) => `"${c}"`).join('|')}]}\`, \`unsubscribe\`, or \`ping\`. ` +
        `At most ${maxPerClient} concurrent WebSockets per account (all its API keys and sessions together) or anonymous IP (429 STREAM_LIMIT before the ` +
        `upgrade). At most ${messagesPerSecond} messages per second per connection (burst ${messageBurst}): beyond, an error frame RATE_LIMITED, ` +
        `then close 1008; a message over ${formatBytes(maxMessageBytes)} closes with 1009. When the credential ends (logout, expiry, revocation) the server closes with 4001. A ` +
        'plain GET without the upgrade is 400. See docs/events.md for frames and close codes.',
      querystring: Type.Object(
        { token: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
        { additionalProperties: false },
      ),
      response: {
        // The handshake's success is 101, which OpenAPI cannot describe further: the frames are in docs/events.md.
        101: { description: 'Switching Protocols: the connection continues as a WebSocket' },
        ...errorResponses(400, 401, 429, 503),
      },
    },
    preHandler: async (request, reply) => {
      await wsPrincipal(deps.auth, request, request.query.token);
      if (request.ws) await takeSlot(deps, request, reply, 'ws');
    },
    handler: async () => {
      throw new AppError('VALIDATION_ERROR', 'this endpoint speaks WebSocket: send an upgrade request', [
        { path: 'headers.upgrade', message: 'must be websocket' },
      ]);
    },
    wsHandler: (socket, request) => {
      const slot = request.streamSlot;
      const unwatch = endWithCredential(realtime, request.principal, () => {
        socket.close(WS_CLOSE.credentialEnded, 'credential ended: logged out, expired or revoked');
        setTimeout(() => socket.terminate(), 5000).unref();
      });
      socket.once('close', () => {
        slot?.release();
        unwatch();
      });
      serveWebSocket(socket, {
        principal: request.principal,
        fanout: realtime.fanout,
        heartbeatMs: config.streams.heartbeatMs,
        maxBufferBytes: config.streams.maxBufferBytes,
        messageRate: config.webSocket,
        log: request.log,
        metrics: deps.metrics,
      });
    },
  });
}
