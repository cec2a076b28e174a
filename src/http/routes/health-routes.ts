import { Type } from 'typebox';
import { type FerryDatabase, pingDatabase } from '../../store/database.ts';
import type { FerryApp } from '../app-types.ts';
import { PUBLIC_SECURITY } from '../schemas/common-schemas.ts';

export function registerHealthRoutes(
  app: FerryApp,
  { database, isDraining }: { database: FerryDatabase; isDraining: () => boolean },
) {
  app.get(
    '/healthz',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['Health'],
        operationId: 'getLiveness',
        security: PUBLIC_SECURITY,
        summary: 'Liveness',
        description: 'The process is up.',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['Health'],
        operationId: 'getReadiness',
        security: PUBLIC_SECURITY,
        summary: 'Readiness',
        description:
          'Ready for traffic: the database answers and the instance is not draining. 503 otherwise.',
        response: {
          200: Type.Object({ status: Type.Literal('ready') }),
          503: Type.Object({ status: Type.Literal('unavailable'), reason: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      if (isDraining()) return reply.code(503).send({ status: 'unavailable' as const, reason: 'draining' });
      try {
        await pingDatabase(database);
        return { status: 'ready' as const };
      } catch {
        return reply.code(503).send({ status: 'unavailable' as const, reason: 'database unreachable' });
      }
    },
  );
}
