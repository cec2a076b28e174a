import type { StoredEvent } from '../store/engine/events-store.ts';

/** The wire shape of an event on both channels: only the public view, never the account ids. */
export function eventWire(event: StoredEvent) {
  return {
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt.toISOString(),
    data: event.data,
  };
}
