import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/app-error.ts';
import type { AccountType, Principal } from '../domain/principal.ts';
import type { AuthService } from '../services/auth-service.ts';
import './request-context.ts';

/**
 * Resolves credentials on every request, before rate limiting, so the limiter can count per account (all its
 * keys and sessions). It never rejects by itself: routes decide with `requireAccount`.
 */
export function installAuthentication(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('authFailure', null);
  // Anonymous requests (the public endpoints, streams, health) pass synchronously: no promise, no microtask.
  app.addHook('onRequest', (request, _reply, done) => {
    const apiKey = request.headers['x-api-key'];
    const authorization = request.headers.authorization;
    if ((apiKey === undefined || apiKey === '') && (authorization === undefined || authorization === '')) {
      done();
      return;
    }
    return resolveCredentials(request, apiKey, authorization);
  });

  async function resolveCredentials(
    request: FastifyRequest,
    apiKey: string | string[] | undefined,
    authorization: string | undefined,
  ) {
    if (typeof apiKey === 'string' && apiKey !== '') {
      request.principal = await auth.principalFromApiKey(apiKey);
      if (!request.principal) request.authFailure = 'the API key is unknown or revoked';
    } else if (typeof authorization === 'string' && authorization !== '') {
      const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
      request.principal = token ? await auth.principalFromSession(token) : null;
      if (!request.principal) request.authFailure = 'the session token is invalid, expired or logged out';
    }
  }
}

/** A preHandler that admits only an authenticated account, and only of the given types. */
export function requireAccount(...types: AccountType[]) {
  return async (request: FastifyRequest): Promise<void> => {
    principalOf(request, types);
  };
}

export function principalOf(request: FastifyRequest, types: readonly AccountType[] = []): Principal {
  const principal = request.principal;
  if (!principal) {
    const sent = request.authFailure !== null;
    const apiKeySent =
      typeof request.headers['x-api-key'] === 'string' && request.headers['x-api-key'] !== '';
    throw new AppError(
      'UNAUTHORIZED',
      request.authFailure ??
        'authentication required: send an x-api-key header or Authorization: Bearer <session token>',
      [
        {
          path: sent && !apiKeySent ? 'headers.authorization' : 'headers.x-api-key',
          message: sent ? (request.authFailure ?? '') : 'is required',
        },
      ],
    );
  }
  if (types.length > 0 && !types.includes(principal.accountType)) {
    throw new AppError('FORBIDDEN', `this endpoint is for ${types.join(' or ')} accounts`, [
      { path: 'headers', message: `account type ${principal.accountType} may not call this endpoint` },
    ]);
  }
  return principal;
}
