import { type Static, Type } from 'typebox';
import { type FerryDatabase, pingDatabase } from '../../store/engine/database.ts';
import type { FerryApp } from '../app-types.ts';
import { PUBLIC_SECURITY } from '../schemas/common-schemas.ts';

const RelayerWarningSchema = Type.Object({
  chain: Type.String({ description: 'Registry chain name' }),
  reason: Type.Literal('relayer balance below floor'),
  relayer: Type.String({ description: "The settlement relayer's address" }),
  balanceWei: Type.String({ description: 'Its native balance, wei (decimal string)' }),
  floorWei: Type.String({ description: "The chain's relayerMinBalanceEther, in wei (decimal string)" }),
});
export type RelayerWarningView = Static<typeof RelayerWarningSchema>;

export function registerHealthRoutes(
  app: FerryApp,
  {
    database,
    isDraining,
    relayerWarnings,
  }: {
    database: FerryDatabase;
    isDraining: () => boolean;
    relayerWarnings: () => readonly RelayerWarningView[];
  },
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
          'Ready for traffic: the database answers and the instance is not draining. 503 otherwise. Where this ' +
          'instance runs the settlement worker, `warnings` lists the chains whose relayer balance is below its ' +
          'floor (relayerMinBalanceEther in the registry): the API still serves (200), but deposits, settles and ' +
          'refunds on those chains stall once the relayer cannot pay for gas.',
        response: {
          200: Type.Object({
            status: Type.Literal('ready'),
            warnings: Type.Optional(Type.Array(RelayerWarningSchema)),
          }),
          503: Type.Object({ status: Type.Literal('unavailable'), reason: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      if (isDraining()) return reply.code(503).send({ status: 'unavailable' as const, reason: 'draining' });
      try {
        await pingDatabase(database);
        const warnings = relayerWarnings();
        return warnings.length > 0
          ? { status: 'ready' as const, warnings: [...warnings] }
          : { status: 'ready' as const };
      } catch {
        return reply.code(503).send({ status: 'unavailable' as const, reason: 'database unreachable' });
      }
    },
  );
}
