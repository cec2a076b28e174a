import { AppError, fieldError } from '../domain/app-error.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES } from '../domain/webhook-rules.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { type DeliveryRow, listDeliveries, retryDelivery } from '../store/tables/webhook-deliveries-store.ts';
import {
  deleteEndpoint,
  findEndpoint,
  findEndpointSecret,
  insertEndpointWithin,
  listEndpoints,
  type WebhookEndpointRow,
} from '../store/tables/webhook-endpoints-store.ts';
import { webhookUrlProblem } from './webhook-address-guard.ts';
import { newWebhookSecret } from './webhook-signature.ts';

export type WebhookEndpoint = WebhookEndpointRow;
export type WebhookDelivery = DeliveryRow;

/** An account's webhook endpoints and their delivery log (the API's /api/v1/webhooks routes). */
export interface WebhookService {
  /** Registers an endpoint; its signing secret is returned here and never again. */
  create(
    accountId: string,
    input: { url: string; events?: readonly string[] },
  ): Promise<WebhookEndpoint & { secret: string }>;
  /**
   * The secret of an endpoint this account created, for the replay of its creation under the same Idempotency-Key
   * (the stored answer has no secret); null when the endpoint is gone.
   */
  secretForReplay(accountId: string, id: string): Promise<string | null>;
  list(accountId: string): Promise<WebhookEndpoint[]>;
  remove(accountId: string, id: string): Promise<void>;
  deliveries(accountId: string, id: string, limit: number): Promise<WebhookDelivery[]>;
  /** Schedules a delivered or failed delivery again, now (a pending one is left as it is). */
  retry(accountId: string, id: string, deliveryId: string): Promise<void>;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export function createWebhookService(deps: {
  database: FerryDatabase;
  clock: Clock;
  allowPrivateUrls: boolean;
}): WebhookService {
  const { database, clock } = deps;

  async function owned(accountId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await findEndpoint(database.db, accountId, id);
    if (!endpoint) throw fieldError('WEBHOOK_NOT_FOUND', 'params.id', 'no such webhook endpoint');
    return endpoint;
  }

  return {
    async create(accountId, input) {
      const problem = webhookUrlProblem(input.url, deps.allowPrivateUrls);
      if (problem) throw fieldError('VALIDATION_ERROR', 'body.url', problem);
      const events = input.events === undefined ? null : [...new Set(input.events)];
      const unknown = (input.events ?? []).flatMap((type, index) =>
        KNOWN_TYPES.has(type)
          ? []
          : [
              {
                path: `body.events.${index}`,
                message: `is not an event type: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
              },
            ],
      );
      if (unknown.length > 0) throw new AppError('VALIDATION_ERROR', 'unknown event type', unknown);
      const endpoint = {
        id: newId('wh', clock.now()),
        accountId,
        url: new URL(input.url).href,
        events,
        createdAt: clock.now(),
        secret: newWebhookSecret(),
      };
      const created = await insertEndpointWithin(database, endpoint, MAX_WEBHOOKS_PER_ACCOUNT);
      if (created === 'limit') {
        throw fieldError(
          'WEBHOOK_LIMIT_REACHED',
          'body',
          `an account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook endpoints; delete one first`,
        );
      }
      return endpoint;
    },
    secretForReplay: (accountId, id) => findEndpointSecret(database.db, accountId, id),
    list: (accountId) => listEndpoints(database.db, accountId),
    async remove(accountId, id) {
      if (!(await deleteEndpoint(database.db, accountId, id))) {
        throw fieldError('WEBHOOK_NOT_FOUND', 'params.id', 'no such webhook endpoint');
      }
    },
    async deliveries(accountId, id, limit) {
      await owned(accountId, id);
      return listDeliveries(database.db, id, limit);
    },
    async retry(accountId, id, deliveryId) {
      await owned(accountId, id);
      // Wall-clock time, as the dispatcher compares it (webhook-dispatcher.ts).
      const result = await retryDelivery(database, id, deliveryId, Date.now());
      if (result === 'missing') {
        throw fieldError('WEBHOOK_NOT_FOUND', 'params.deliveryId', 'no such delivery for this endpoint');
      }
    },
  };
}
