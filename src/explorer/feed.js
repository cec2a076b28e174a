// @ts-check
// The live feed: one line per stream event, newest first, the last FEED_MAX kept.
import { $, badge, h } from './dom.js';
import { amountEl } from './elements.js';
import { formatTime, shortId } from './format.js';

/** @typedef {import('./types.js').FerryEvent} FerryEvent */

const FEED_MAX = 30;

/**
 * The line's words and elements for one event.
 * @param {FerryEvent} event
 * @returns {(string | Node)[]}
 */
function feedText(event) {
  /** @type {{ id?: string, status?: string, inputChain?: string, inputToken?: string, inputAmount?: string,
   *   outputChain?: string, outputToken?: string, outputAmount?: string }} */
  const d = event.data ?? {};
  /** @param {string | undefined} id */
  const link = (id) => h('a', { class: 'mono', href: `#/orders/${id}`, title: id }, shortId(id));
  const pair = () => [
    amountEl(d.inputChain, d.inputToken, d.inputAmount),
    ` on ${d.inputChain} → `,
    d.outputAmount ? amountEl(d.outputChain, d.outputToken, d.outputAmount) : 'quotes',
    ` on ${d.outputChain}`,
  ];
  switch (event.type) {
    case 'order.created':
      return ['New order ', link(d.id), ': ', ...pair()];
    case 'order.updated':
      return ['Order ', link(d.id), ' is now ', badge(/** @type {string} */ (d.status))];
    case 'order.attested':
      return ['Fill of order ', link(d.id), ' attested'];
    case 'order.exclusivityLapsed':
      return ['Order ', link(d.id), ' is open to any filler'];
    case 'quote.created':
      return ['New quote: ', ...pair()];
    case 'quote.accepted':
      return ['Quote accepted: ', ...pair()];
    case 'quote.declined':
      return ['Quote declined: ', ...pair()];
    case 'quote.expired':
      return ['Quote expired: ', ...pair()];
    case 'quoteRequest.created':
      return ['Quote requested: ', ...pair()];
    case 'quoteRequest.expired':
      return ['Quote request expired: ', ...pair()];
    default:
      return [/** @type {{ type: string }} */ (event).type];
  }
}

/** @param {FerryEvent} event */
export function addFeedItem(event) {
  const item = h(
    'li',
    {
      class: `feed-item feed-${event.type.replace('.', '-')}`,
      'data-event-id': event.id,
      'data-type': event.type,
    },
    h(
      'time',
      { datetime: event.occurredAt, class: 'feed-time', title: formatTime(event.occurredAt) },
      formatTime(event.occurredAt, 'clock'),
    ),
    h('span', { class: 'feed-text' }, ...feedText(event)),
  );
  const list = $('feed');
  list.prepend(item);
  while (list.childElementCount > FEED_MAX) list.lastElementChild?.remove();
  $('feed-empty').hidden = true;
}
