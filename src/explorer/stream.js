// @ts-check
// The live connection to GET /api/public/stream, and the indicator in the header that shows its state.
import { $ } from './dom.js';

const STREAM_EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.attested',
  'order.exclusivityLapsed',
  'quote.created',
  'quote.accepted',
  'quote.declined',
  'quote.expired',
  'quoteRequest.created',
  'quoteRequest.expired',
];

const CONNECTION_TEXT = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
};

function setConnection(status, text = CONNECTION_TEXT[status]) {
  const el = $('conn');
  el.dataset.state = status;
  $('conn-text').textContent = text;
}

/**
 * EventSource reconnects by itself after a dropped stream and sends Last-Event-ID, so the server replays what
 * was missed. When it gives up (an HTTP error such as 429 or 503), a new one starts after a backoff, carrying the
 * last id in the query (EventSource cannot set the header on a fresh connection).
 */
export function connectStream({ onEvent: handleEvent, onReset }) {
  let source = null;
  let lastEventId = null;
  let backoffMs = 1000;
  let failures = 0;
  let timer = null;

  function open() {
    timer = null;
    const url = lastEventId
      ? `/api/public/stream?lastEventId=${encodeURIComponent(lastEventId)}`
      : '/api/public/stream';
    source = new EventSource(url);
    source.addEventListener('open', () => {
      backoffMs = 1000;
      failures = 0;
      setConnection('live');
    });
    source.addEventListener('error', () => {
      failures += 1;
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        const seconds = Math.round(backoffMs / 1000);
        setConnection('offline', `Offline: retrying in ${seconds} s`);
        timer = setTimeout(open, backoffMs);
        backoffMs = Math.min(backoffMs * 2, 30_000);
      } else if (failures > 1) {
        // The browser keeps retrying on its own, but the server has not answered twice in a row.
        setConnection('offline', 'Offline: reconnecting…');
      } else {
        setConnection('reconnecting');
      }
    });
    const onEvent = (message) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      handleEvent(event);
    };
    for (const type of STREAM_EVENT_TYPES) source.addEventListener(type, onEvent);
    // The gap since our last id is older than the server's replay window: reload what is on screen.
    source.addEventListener('stream.reset', (message) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      onReset();
    });
  }

  // Coming back to the tab after the browser gave up: try at once instead of waiting out the backoff.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && timer) {
      clearTimeout(timer);
      open();
    }
  });
  open();
}
