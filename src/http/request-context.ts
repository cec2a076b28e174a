import type { Principal } from '../domain/principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null. Set by the authentication hook before anything else runs. */
    principal: Principal | null;
    /** Why credentials that were sent were refused; answered as 401 only where the route needs auth. */
    authFailure: string | null;
    idempotency: { scope: string; key: string } | null;
  }
  interface FastifyContextConfig {
    /** False on routes whose responses carry credentials: an Idempotency-Key there is ignored, nothing is stored. */
    storeIdempotentResponses?: boolean;
    /**
     * A route whose answer holds something that must not be kept in the idempotency store: `store` takes it out of
     * the body before it is written, `replay` puts it back (or throws an AppError) when the key is replayed.
     */
    idempotentResponse?: {
      store(body: string): string;
      replay(request: FastifyRequest, stored: { statusCode: number; body: string }): Promise<string>;
    };
    /** Answered with ETag and Cache-Control, and 304 to a matching If-None-Match (conditional-get.ts). */
    conditionalGet?: boolean;
  }
}
