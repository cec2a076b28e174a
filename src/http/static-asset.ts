import type { FastifyReply } from 'fastify';

/** A file answered from memory (explorer assets, guides): its bytes, type and validator. */
export interface StaticAsset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
}

/**
 * Sends a file held in memory with the headers every served page and asset shares. 304 to a matching If-None-Match
 * comes from the conditional-GET hook (conditional-get.ts), on routes with `config.conditionalGet`.
 */
export function sendStaticAsset(reply: FastifyReply, asset: StaticAsset, contentSecurityPolicy: string) {
  return (
    reply
      .header('content-type', asset.contentType)
      // Revalidated on every load (cheap 304s), so a new release is picked up at once.
      .header('cache-control', 'no-cache')
      .header('etag', asset.etag)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', contentSecurityPolicy)
      .header('referrer-policy', 'no-referrer')
      .send(asset.body)
  );
}
