import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import { orderTermsFrom } from '../domain/order-typed-data.ts';
import { settlementRecord } from '../domain/proof-decision.ts';
import type { Order } from '../domain/records.ts';
import { decideSettlement, fillProblems } from '../domain/settlement-decision.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { findQuote } from '../store/tables/quotes-store.ts';
import type { DecisionExecutor, StepResult } from './decision-executor.ts';
import type { OrderObserver } from './order-observer.ts';
import { SettlementError } from './settlement-error.ts';

/** One settlement step of one order: observe, decide, act. */
export interface OrderStepper {
  step(order: Order): Promise<StepResult>;
}

export function createOrderStepper(deps: {
  readonly database: FerryDatabase;
  readonly observer: OrderObserver;
  readonly executor: DecisionExecutor;
  readonly log: FastifyBaseLogger;
  readonly clock: Clock;
  /** Times each decision carried out (ferry_settlement_step_duration_seconds). */
  readonly metrics?: FerryMetrics;
}): OrderStepper {
  const { database, observer, executor, log } = deps;
  return {
    async step(order) {
      const quote = await findQuote(database.db, order.quoteId);
      if (!quote) throw new SettlementError(`order ${order.id} has no quote`);
      const terms = orderTermsFrom(quote.typedData);
      const observation = await observer.observe(order, terms);
      const problems = observation.fill && fillProblems(observation);
      if (problems && !problems.every((p) => p === 'not at confirmations depth')) {
        // A fill with the wrong terms is never attested; the order will refund after its deadline.
        log.warn(
          { orderId: order.id, problems, fillTx: observation.fill?.txHash },
          'fill does not match the order',
        );
      }
      const decision = decideSettlement(observation);
      const stopTimer = deps.metrics?.settlementStep.startTimer({ decision: decision.kind });
      try {
        const settlement = settlementRecord(observation, order.settlement, deps.clock.now());
        return await executor.act(order, terms, decision, observation, settlement);
      } finally {
        stopTimer?.();
      }
    },
  };
}
