import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import './request-context.ts';

/** A strong validator of the bytes: 22 characters of their SHA-256. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/** Whether If-None-Match names this ETag or `*`; a weak `W/` form matches too (RFC 9110 weak comparison). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/**
 * Routes with `config.conditionalGet` (the explorer, the OpenAPI document, the API reference at /docs) answer with
 * an ETag (the handler's own, else one computed from the body) and `Cache-Control: no-cache`, so browsers and
 * proxies revalidate on each use, and a matching If-None-Match gets 304 without the body. Streamed bodies (the
 * reference's static files) are left to the file server, which validates them itself.
 */
export function installConditionalGet(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (
      !request.routeOptions.config.conditionalGet ||
      reply.statusCode !== 200 ||
      (typeof payload !== 'string' && !Buffer.isBuffer(payload))
    ) {
      done(null, payload);
      return;
    }
    const given = reply.getHeader('etag');
    const etag = typeof given === 'string' ? given : etagOf(payload);
    reply.header('etag', etag);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-cache');
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
      reply.code(304);
      done(null, '');
      return;
    }
    done(null, payload);
  });
}
