import { Type } from 'typebox';
import type { Config } from '../../config/config.ts';
import { formatDuration } from '../../domain/limit-text.ts';
import type { FerryMetrics } from '../../metrics/ferry-metrics.ts';
import type { AuthService } from '../../services/auth-service.ts';
import type { FerryApp } from '../app-types.ts';
import { principalOf } from '../auth-hooks.ts';
import { signInAddressRateLimit, signInRateLimit } from '../rate-limit.ts';
import { AddressSchema, errorResponses, PUBLIC_SECURITY } from '../schemas/common-schemas.ts';

export function registerAuthRoutes(
  app: FerryApp,
  { auth, config, metrics }: { auth: AuthService; config: Config; metrics: FerryMetrics },
) {
  const addressLimit = signInAddressRateLimit(app, config, metrics);
  app.get(
    '/auth/nonce',
    {
      schema: {
        tags: ['Auth'],
        operationId: 'getSignInNonce',
        security: PUBLIC_SECURITY,
        summary: 'Get a Sign-In with Ethereum nonce',
        description: `A fresh nonce for an EIP-4361 message. Single use; valid for ${formatDuration(config.siweNonceTtlSeconds)}.`,
        response: { 200: Type.Object({ nonce: Type.String() }), ...errorResponses(429) },
      },
    },
    async () => ({ nonce: await auth.issueNonce() }),
  );

  app.post(
    '/auth/verify',
    {
      // The answer holds a live session token: never stored for Idempotency-Key replays.
      config: { storeIdempotentResponses: false },
      onRequest: signInRateLimit(app, config, metrics),
      schema: {
        tags: ['Auth'],
        operationId: 'verifySignIn',
        security: PUBLIC_SECURITY,
        summary: 'Verify a signed sign-in message',
        description:
          'Checks the EIP-4361 message (domain, nonce, chain, expiry) and its signature (ECDSA, or EIP-1271 isValidSignature on the chain of the message when the address is a contract wallet such as a Safe), and opens a session. Present it as `Authorization: Bearer <token>` on endpoints 1-10, acting as the money mover of that address. ' +
          `At most ${config.signIn.perIpPerMinute} sign-ins per minute per client IP and ${config.signIn.perAddressPerMinute} per address from any IP (429 RATE_LIMITED), and ${config.signIn.sessionsPerAddress} live sessions per address: a new session ends the oldest. ` +
          'An Idempotency-Key is ignored here (the answer holds a live token and is never stored).',
        body: Type.Object(
          {
            message: Type.String({ minLength: 1, maxLength: 4096 }),
            signature: Type.String({
              pattern: '^0x([0-9a-fA-F]{2}){64,}$',
              maxLength: 2 + 2 * 4096,
              description:
                "ECDSA (65 bytes, or 64-byte EIP-2098), or a contract wallet's EIP-1271 signature (a Safe: one 65-byte segment per owner), up to 4096 bytes",
              'x-message': 'must be a 0x-prefixed hex signature of 64 to 4096 bytes',
            }),
            address: AddressSchema,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            session: Type.Object({
              token: Type.String(),
              address: AddressSchema,
              expiresAt: Type.String(),
              accountId: Type.String(),
            }),
          }),
          ...errorResponses(400, 401, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const session = await auth.verify(
        { ...request.body, signature: request.body.signature as `0x${string}` },
        () => addressLimit(request, reply),
      );
      return { success: true, session: { ...session, expiresAt: session.expiresAt.toISOString() } };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { storeIdempotentResponses: false },
      schema: {
        tags: ['Auth'],
        operationId: 'logout',
        summary: 'End the current session',
        description:
          "Revokes the bearer session at once and closes the session's open streams (WebSocket close 4001, SSE `session.ended`).",
        security: [{ session: [] }],
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      await auth.logout(principalOf(request));
      return { success: true };
    },
  );
}
