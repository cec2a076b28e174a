import type { FastifyBaseLogger } from 'fastify';
import { hashTypedData } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type ChainRegistry, registryChain, registryError } from '../chains/chain-registry.ts';
import { fillAttestationTypedData } from '../chains/settlement/fill-attestation.ts';
import type { Clock } from '../domain/clock.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { FillAttestation, Order } from '../domain/records.ts';
import { validFillAtDepth } from '../domain/settlement-decision.ts';
import type { SettlementObservation } from '../domain/settlement-observation.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { recordFillAttestation, recordOrderSettlement } from '../store/ledgers/settlement-store.ts';
import { findOrder } from '../store/tables/orders-store.ts';
import { SettlementError } from './settlement-error.ts';

/** Signs and keeps an order's fill attestation (attester chains). */
export interface Attesting {
  /** The order's attestation: the one kept, or a new one for the valid fill at depth, kept and announced first. */
  attest(order: Order, terms: OrderTerms, obs: SettlementObservation): Promise<FillAttestation>;
}

/**
 * The attester signs a fill only once it is valid and final. The attestation is written on the order (with the
 * settlement record `attester`/`verified`) and announced to the filler (`order.attested` on its account channel)
 * in one unit of work before Ferry relays it: the filler can relay it itself, so its payment does not wait on
 * Ferry's relayer.
 */
export function createAttesting(deps: {
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly attester: PrivateKeyAccount;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly actor: string;
}): Attesting {
  const { database, attester, clock, actor } = deps;

  return {
    async attest(order, _terms, obs) {
      if (order.fillAttestation) return order.fillAttestation;
      const fill = validFillAtDepth(obs);
      if (!fill) throw new SettlementError(`order ${order.id}: no valid fill at depth to attest`);
      const input = registryChain(deps.registry, order.inputChain);
      const { settlement } = input;
      if (settlement.method !== 'attester' || !settlement.messenger) {
        throw registryError(`chain ${input.name} has no attester messenger`);
      }
      const messenger = settlement.messenger;
      const typedData = fillAttestationTypedData({
        messenger,
        escrow: input.contracts.escrow,
        inputChainId: input.chainId,
        orderHash: order.blockchainOrderId,
        filler: fill.filler,
        fillTime: fill.blockTimestamp,
      });
      const attestation: FillAttestation = {
        messenger,
        escrow: input.contracts.escrow,
        filler: fill.filler,
        fillTime: fill.blockTimestamp,
        signature: await attester.signTypedData(typedData),
      };
      const now = clock.now();
      await database.transaction(async (trx, uow) => {
        if (!(await recordFillAttestation(trx, order.id, attestation, now, actor))) return;
        const settlement = {
          method: 'attester' as const,
          messageId: hashTypedData(typedData),
          status: 'verified' as const,
          txHash: null,
          sentAt: now,
          deliveredAt: null,
        };
        await recordOrderSettlement(trx, order.id, order.status, settlement, now, actor);
        const updated = await findOrder(trx, order.id);
        if (!updated) return;
        uow.emit({
          type: 'order.attested',
          occurredAt: now,
          data: publicOrderView(updated),
          accountIds: [updated.liquidityProviderAccountId],
        });
      });
      deps.log.info({ orderId: order.id }, 'fill attested; the attestation is on the order for its filler');
      // A concurrent writer's attestation is the same signature (deterministic), so either one serves.
      return (await findOrder(database.db, order.id))?.fillAttestation ?? attestation;
    },
  };
}
