import type { FastifyContextConfig } from 'fastify';
import { Type } from 'typebox';
import { fieldError } from '../../domain/app-error.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES } from '../../domain/webhook-rules.ts';
import type { WebhookDelivery, WebhookEndpoint, WebhookService } from '../../webhooks/webhook-service.ts';
import type { FerryApp } from '../app-types.ts';
import { principalOf, requireAccount } from '../auth-hooks.ts';
import { ACCOUNT_SECURITY, envelope, errorResponses, IdSchema } from '../schemas/common-schemas.ts';
import { WebhookDeliverySchema, WebhookSchema } from '../schemas/webhook-schemas.ts';

const TAGS = ['Webhooks'];
const ACCOUNT_TYPES_ALLOWED = ['moneyMover', 'liquidityProvider'] as const;
const guard = requireAccount(...ACCOUNT_TYPES_ALLOWED);

const endpointView = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events === null ? null : [...endpoint.events],
  createdAt: endpoint.createdAt.toISOString(),
});

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

const deliveryView = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  eventId: delivery.eventId,
  type: delivery.eventType,
  status: delivery.status,
  nextAttemptAt: iso(delivery.nextAttemptAt),
  createdAt: delivery.createdAt.toISOString(),
  attempts: delivery.attempts.map((a) => ({
    attempt: a.attempt,
    attemptedAt: a.attemptedAt.toISOString(),
    outcome: a.outcome,
    statusCode: a.statusCode,
    error: a.error,
    nextAttemptAt: iso(a.nextAttemptAt),
  })),
});

/**
 * The 201 of a creation is stored for Idempotency-Key replays without its `secret` (the idempotency table is no
 * place for a signing secret); a replay reads the secret from the endpoint again, so the client that lost the first
 * answer gets the same one. An endpoint deleted since: 404 WEBHOOK_NOT_FOUND.
 */
function secretlessReplay(webhooks: WebhookService): FastifyContextConfig['idempotentResponse'] {
  type Created = { message: string; data?: { id?: string; secret?: string } };
  return {
    store(body) {
      const parsed = JSON.parse(body) as Created;
      if (parsed.data?.secret === undefined) return body;
      const { secret: _kept, ...data } = parsed.data;
      return JSON.stringify({ ...parsed, data });
    },
    async replay(request, stored) {
      const parsed = JSON.parse(stored.body) as Created;
      const id = parsed.data?.id;
      if (stored.statusCode !== 201 || id === undefined) return stored.body;
      const secret = await webhooks.secretForReplay(principalOf(request).accountId, id);
      if (secret === null) {
        throw fieldError(
          'WEBHOOK_NOT_FOUND',
          'headers.idempotency-key',
          'the webhook endpoint created with this Idempotency-Key has been deleted since',
        );
      }
      return JSON.stringify({ ...parsed, data: { ...parsed.data, secret } });
    },
  };
}

const EndpointParams = Type.Object({ id: IdSchema }, { additionalProperties: false });

export function registerWebhookRoutes(app: FerryApp, deps: { webhooks: WebhookService }) {
  registerEndpointRoutes(app, deps);
  registerDeliveryRoutes(app, deps);
}

/** Register, list and delete endpoints. */
function registerEndpointRoutes(app: FerryApp, { webhooks }: { webhooks: WebhookService }) {
  app.post(
    '/api/v1/webhooks',
    {
      preValidation: guard,
      config: { idempotentResponse: secretlessReplay(webhooks) },
      schema: {
        tags: TAGS,
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint',
        description: `Ferry POSTs the account's events to \`url\`, signed (Standard Webhooks), retried for more than a day. The \`secret\` verifies the signatures and is shown only in this answer (and in its replay under the same Idempotency-Key: the secret is not kept with the key but read from the endpoint, 404 WEBHOOK_NOT_FOUND once it is deleted). At most ${MAX_WEBHOOKS_PER_ACCOUNT} endpoints per account (409 WEBHOOK_LIMIT_REACHED). The URL must be https on a public address unless the server allows private URLs (400 VALIDATION_ERROR, path \`body.url\`).`,
        security: ACCOUNT_SECURITY,
        body: Type.Object(
          {
            url: Type.String({
              minLength: 1,
              maxLength: 2048,
              description: 'The receiver: https, public address',
            }),
            events: Type.Optional(
              Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
                maxItems: 32,
                description: `Event types to send (default: all of the account channel): ${WEBHOOK_EVENT_TYPES.join(', ')}`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: envelope(Type.Object({ ...WebhookSchema.properties, secret: Type.String() })),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const created = await webhooks.create(principalOf(request).accountId, request.body);
      reply.code(201);
      return { message: 'webhook created', data: { ...endpointView(created), secret: created.secret } };
    },
  );

  app.get(
    '/api/v1/webhooks',
    {
      preValidation: guard,
      schema: {
        tags: TAGS,
        operationId: 'listWebhooks',
        summary: 'List your webhook endpoints',
        description: 'The endpoints of the calling account, oldest first, without their secrets.',
        security: ACCOUNT_SECURITY,
        response: {
          200: envelope(Type.Object({ webhooks: Type.Array(WebhookSchema) })),
          ...errorResponses(401, 403, 429),
        },
      },
    },
    async (request) => {
      const list = await webhooks.list(principalOf(request).accountId);
      return { message: 'webhooks', data: { webhooks: list.map(endpointView) } };
    },
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      preValidation: guard,
      schema: {
        tags: TAGS,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint',
        description: 'Stops every delivery to the endpoint and deletes its delivery log.',
        security: ACCOUNT_SECURITY,
        params: EndpointParams,
        response: {
          200: envelope(Type.Object({ id: Type.String() })),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      await webhooks.remove(principalOf(request).accountId, request.params.id);
      return { message: 'webhook deleted', data: { id: request.params.id } };
    },
  );
}

/** The delivery log and its manual retry. */
function registerDeliveryRoutes(app: FerryApp, { webhooks }: { webhooks: WebhookService }) {
  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      preValidation: guard,
      schema: {
        tags: TAGS,
        operationId: 'listWebhookDeliveries',
        summary: "An endpoint's recent deliveries",
        description:
          'The newest deliveries (one per event), each with its attempts: HTTP status or error, and when the next attempt is due.',
        security: ACCOUNT_SECURITY,
        params: EndpointParams,
        querystring: Type.Object(
          {
            limit: Type.Integer({
              minimum: 1,
              maximum: 100,
              default: 50,
              description: 'Deliveries, 1 to 100',
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: envelope(Type.Object({ deliveries: Type.Array(WebhookDeliverySchema) })),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const list = await webhooks.deliveries(
        principalOf(request).accountId,
        request.params.id,
        request.query.limit,
      );
      return { message: 'webhook deliveries', data: { deliveries: list.map(deliveryView) } };
    },
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:deliveryId/retry',
    {
      preValidation: guard,
      schema: {
        tags: TAGS,
        operationId: 'retryWebhookDelivery',
        summary: 'Send a delivery again',
        description:
          'Schedules a failed (or delivered) delivery for an attempt now, with a fresh retry schedule. A delivery already waiting for its next attempt is left as it is.',
        security: ACCOUNT_SECURITY,
        params: Type.Object({ id: IdSchema, deliveryId: IdSchema }, { additionalProperties: false }),
        response: {
          202: envelope(Type.Object({ id: Type.String(), status: Type.Literal('pending') })),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      await webhooks.retry(principalOf(request).accountId, id, deliveryId);
      reply.code(202);
      return { message: 'delivery scheduled', data: { id: deliveryId, status: 'pending' as const } };
    },
  );
}
