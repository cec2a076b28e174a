import { Type } from 'typebox';
import { NullableString, NullableTimestampSchema, TimestampSchema } from './common-schemas.ts';

/** A webhook endpoint as listed (never with its secret). */
export const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Event types sent to it; null: every event type of the account channel',
  }),
  createdAt: TimestampSchema,
});

const WebhookAttemptSchema = Type.Object({
  attempt: Type.Integer({ description: 'From 1' }),
  attemptedAt: TimestampSchema,
  outcome: Type.Union([
    Type.Literal('delivered'),
    Type.Literal('retry'),
    Type.Literal('failed'),
    Type.Literal('refused'),
  ]),
  statusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's HTTP status, if it answered",
  }),
  error: NullableString,
  nextAttemptAt: NullableTimestampSchema,
});

/** One event for one endpoint, and every attempt to send it. */
export const WebhookDeliverySchema = Type.Object({
  id: Type.String(),
  eventId: Type.Integer({ description: 'The event id, also sent as `webhook-id`' }),
  type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  nextAttemptAt: NullableTimestampSchema,
  createdAt: TimestampSchema,
  attempts: Type.Array(WebhookAttemptSchema),
});
