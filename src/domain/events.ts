import type { publicOrderView, publicQuoteRequestView, publicQuoteView } from './public-views.ts';

/**
 * The WebSocket channels. `public` carries every event to anyone (the SSE stream is the same feed);
 * `quoteRequests` carries new open requests to liquidity providers; `account` carries an account's own events.
 */
export const CHANNELS = ['public', 'quoteRequests', 'account'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The public view each kind of event carries as its `data`: never account ids or signatures. */
export interface EventViews {
  readonly quoteRequest: ReturnType<typeof publicQuoteRequestView>;
  readonly quote: ReturnType<typeof publicQuoteView>;
  readonly order: ReturnType<typeof publicOrderView>;
}
export type EventView = keyof EventViews;

interface EventEntry {
  readonly view: EventView;
  /** Where the WebSocket delivers it; `account` reaches only the accounts the event names. */
  readonly channels: readonly Channel[];
  readonly description: string;
}

/**
 * Every event type, declared once: its view and its channels. The WebSocket's channel matching, the SDK's
 * generated `FerryEvent` (scripts/generate-client-types.ts) and the stream tests read it; test/event-catalogue.test.ts
 * fails when the explorer or docs/events.md misses one.
 */
export const EVENT_CATALOGUE = {
  'quoteRequest.created': {
    view: 'quoteRequest',
    channels: ['public', 'quoteRequests', 'account'],
    description: 'A money mover opened a quote request.',
  },
  'quoteRequest.expired': {
    view: 'quoteRequest',
    channels: ['public', 'account'],
    description: 'An open quote request reached its expiry without an accepted quote.',
  },
  'quote.created': {
    view: 'quote',
    channels: ['public', 'account'],
    description: 'A liquidity provider quoted an open request.',
  },
  'quote.accepted': {
    view: 'quote',
    channels: ['public', 'account'],
    description: 'The money mover accepted this quote.',
  },
  'quote.declined': {
    view: 'quote',
    channels: ['public', 'account'],
    description: 'Another quote on the same request was accepted.',
  },
  'quote.expired': {
    view: 'quote',
    channels: ['public', 'account'],
    description: 'The quote ended unaccepted, or was replaced by its provider.',
  },
  'order.created': {
    view: 'order',
    channels: ['public', 'account'],
    description: 'The money mover submitted the signed order.',
  },
  'order.updated': {
    view: 'order',
    channels: ['public', 'account'],
    description:
      'The order moved to another status (deposited, filled, settled, refunded, failed…), or its settlement message moved on (sent, verified, delivered).',
  },
  'order.attested': {
    view: 'order',
    channels: ['public', 'account'],
    description:
      "Ferry's attester signed the fill (attester chains): the filler reads the attestation in the order's `details.settlement.attestation` and may relay it itself.",
  },
  'order.exclusivityLapsed': {
    view: 'order',
    channels: ['public', 'quoteRequests', 'account'],
    description:
      "The deposited order's exclusivity lapsed unfilled: any liquidity provider may now fill it until its fillDeadline (and is paid for it). Listed by GET /api/v1/open-orders.",
  },
} as const satisfies Record<string, EventEntry>;

export type EventType = keyof typeof EVENT_CATALOGUE;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as readonly EventType[];

/** The `data` an event of this type carries. */
export type EventData<T extends EventType> = EventViews[(typeof EVENT_CATALOGUE)[T]['view']];

/** The channels an event type is delivered on; none for a type this version does not know. */
export function channelsOf(type: string): readonly Channel[] {
  return Object.hasOwn(EVENT_CATALOGUE, type) ? EVENT_CATALOGUE[type as EventType].channels : [];
}

/** An event as a unit of work queues it; the store gives it its id when the transaction appends it. */
export interface NewEvent {
  readonly type: EventType;
  readonly occurredAt: Date;
  /** The public view (`EventData` of its type); the only part the anonymous stream ever sends. */
  readonly data: unknown;
  /** Accounts whose private `account` channel receives the event. */
  readonly accountIds: readonly string[];
}
