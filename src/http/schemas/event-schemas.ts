import { type Static, type TSchema, Type } from 'typebox';
import {
  CHANNELS,
  EVENT_CATALOGUE,
  EVENT_TYPES,
  type EventView,
  type EventViews,
} from '../../domain/events.ts';
import { TimestampSchema } from './common-schemas.ts';
import { PublicOrderSchema, PublicQuoteRequestSchema, PublicQuoteSchema } from './resource-schemas.ts';

/** Each event view's schema and the name it has among the SDK's types. */
const VIEW_SCHEMAS = {
  quoteRequest: { name: 'PublicQuoteRequest', schema: PublicQuoteRequestSchema },
  quote: { name: 'PublicQuote', schema: PublicQuoteSchema },
  order: { name: 'PublicOrder', schema: PublicOrderSchema },
} as const satisfies { readonly [V in EventView]: { readonly name: string; readonly schema: TSchema } };

// The views the domain builds must fit their schemas, field for field: a field added to one and not the other, or
// of another type, fails to compile here.
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Fits<A, B> = [A] extends [B] ? SameKeys<A, B> : false;
type SchemaOf<V extends EventView> = Static<(typeof VIEW_SCHEMAS)[V]['schema']>;
const viewsMatchSchemas: { readonly [V in EventView]: Fits<EventViews[V], SchemaOf<V>> } = {
  quoteRequest: true,
  quote: true,
  order: true,
};
void viewsMatchSchemas;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * OpenAPI component schemas of the live events, from the event catalogue: one `FerryEvent` variant per view
 * (its `type` the view's event types), the views by name, and the WebSocket channels. The SDK's event types are
 * generated from them (scripts/generate-client-types.ts).
 */
export function eventComponentSchemas(): Record<string, unknown> {
  const views = Object.keys(VIEW_SCHEMAS) as EventView[];
  const variants = views.map((view) => {
    const types = EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].view === view);
    return {
      type: 'object',
      required: ['id', 'type', 'occurredAt', 'data'],
      properties: {
        id: {
          type: 'integer',
          description:
            'Increases monotonically; pass the last one seen as `lastEventId` to resume the SSE stream',
        },
        type: {
          type: 'string',
          enum: types,
          description: types
            .map((type) => {
              const { description, channels } = EVENT_CATALOGUE[type];
              return `\`${type}\`: ${description} Channels: ${channels.join(', ')}.`;
            })
            .join('\n'),
        },
        occurredAt: TimestampSchema,
        data: ref(VIEW_SCHEMAS[view].name),
      },
      additionalProperties: false,
    };
  });
  return {
    ...Object.fromEntries(views.map((view) => [VIEW_SCHEMAS[view].name, VIEW_SCHEMAS[view].schema])),
    FerryEvent: {
      description:
        'One event of the event log, as both the SSE stream and the WebSocket deliver it (docs/events.md)',
      oneOf: variants,
    },
    WsChannel: Type.Enum(CHANNELS, { description: 'A WebSocket channel (docs/events.md)' }),
  };
}
