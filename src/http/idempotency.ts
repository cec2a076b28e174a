import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/app-error.ts';
import type { Clock } from '../domain/clock.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
} from '../store/tables/idempotency-store.ts';
import './request-context.ts';

/** JSON with object keys sorted, so the same body with its keys in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on POST: the first request with a key runs and its response (below 500) is stored;
 * the same key and body replays it; the same key with another body is 409 IDEMPOTENCY_KEY_REUSED.
 * Keys are scoped per credential (or client IP when anonymous) and kept for IDEMPOTENCY_TTL_SECONDS. Routes that answer with a
 * credential (sign-in) opt out: a stored copy would be a live token kept in plain text, replayable by anyone
 * who repeats the request. Routes whose answer holds a secret the server keeps anyway (a webhook's signing secret)
 * store the answer without it and put it back on replay (`idempotentResponse`).
 */
export function installIdempotency(
  app: FastifyInstance,
  { database, clock }: { database: FerryDatabase; clock: Clock },
) {
  app.decorateRequest('idempotency', null);

  // Both hooks run on every request and nearly all of them carry no key: those pass through synchronously
  // (an async hook costs a promise and a microtask per request even when it does nothing).
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (
      request.method !== 'POST' ||
      request.headers['idempotency-key'] === undefined ||
      request.routeOptions.config.storeIdempotentResponses === false
    ) {
      done();
      return;
    }
    return claim(request, reply);
  });

  async function claim(request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers['idempotency-key'];
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
      throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 visible ASCII characters', [
        { path: 'headers.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
    const scope = request.principal ? `cred:${request.principal.credentialId}` : `ip:${request.ip}`;
    const hash = createHash('sha256')
      .update(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`)
      .digest('hex');
    const claim = await claimIdempotencyKey(database.db, scope, header, hash, clock.now());
    switch (claim.kind) {
      case 'claimed':
        request.idempotency = { scope, key: header };
        return;
      case 'replay': {
        const redacted = request.routeOptions.config.idempotentResponse;
        const body = redacted ? await redacted.replay(request, claim) : claim.body;
        reply
          .code(claim.statusCode)
          .header('idempotent-replayed', 'true')
          .type('application/json; charset=utf-8');
        return reply.send(body);
      }
      case 'mismatch':
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'this Idempotency-Key was used with a different request',
          [{ path: 'headers.idempotency-key', message: 'already used with a different body or path' }],
        );
      case 'inFlight':
        throw new AppError(
          'CONFLICT',
          'a request with this Idempotency-Key is still in progress; retry shortly',
          [{ path: 'headers.idempotency-key', message: 'request in progress' }],
        );
    }
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.idempotency) {
      done(null, payload);
      return;
    }
    return record(request, reply, payload);
  });

  async function record(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claimed = request.idempotency;
    if (!claimed) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await releaseIdempotencyKey(database.db, claimed.scope, claimed.key);
    } else {
      const redacted = request.routeOptions.config.idempotentResponse;
      const stored = redacted ? redacted.store(payload) : payload;
      await completeIdempotencyKey(database.db, claimed.scope, claimed.key, reply.statusCode, stored);
    }
    return payload;
  }
}
