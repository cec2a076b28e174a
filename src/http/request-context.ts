import type { Principal } from '../domain/principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null. Set by the authentication hook before anything else runs. */
    principal: Principal | null;
    /** Why credentials that were sent were refused; answered as 401 only where the route needs auth. */
    authFailure: string | null;
    idempotency: { scope: string; key: string } | null;
  }
}
