// @ts-check
// The recent quotes beside the orders: GET /api/public/quotes/recent, kept live by the stream's quote events.
import { getJson } from './api.js';
import { $, badge, h, showStatus, timeEl } from './dom.js';
import { amountEl } from './elements.js';

/** @typedef {import('./types.js').PublicQuote} PublicQuote */
/** @typedef {import('./types.js').QuoteEvent} QuoteEvent */

const QUOTES_LIMIT = 8;

/**
 * @typedef {object} QuotesPanel
 * @property {() => Promise<void>} load
 * @property {() => void} render
 * @property {(event: QuoteEvent) => void} apply A quote event: updates a quote on screen, or adds a new one.
 */

/** @returns {QuotesPanel} */
export function createQuotesPanel() {
  /** @type {PublicQuote[]} */
  let quotes = [];

  async function load() {
    try {
      /** @type {import('../../sdk/src/types.ts').RecentQuotes} */
      const body = await getJson(`/api/public/quotes/recent?limit=${QUOTES_LIMIT}`);
      quotes = body.data.quotes;
      showStatus($('quotes-status'), 'info', null);
    } catch (error) {
      quotes = [];
      showStatus(
        $('quotes-status'),
        'error',
        `Could not load quotes. ${/** @type {Error} */ (error).message}`,
        {
          label: 'Retry',
          run: load,
        },
      );
    }
    render();
  }

  function render() {
    const list = $('quotes');
    list.replaceChildren(
      ...quotes.map((q) =>
        h(
          'li',
          { class: 'quote', 'data-quote-id': q.id },
          h(
            'div',
            { class: 'quote-amounts' },
            amountEl(q.inputChain, q.inputToken, q.inputAmount),
            h('span', { class: 'arrow', 'aria-label': 'for' }, ' → '),
            amountEl(q.outputChain, q.outputToken, q.outputAmount),
          ),
          h(
            'div',
            { class: 'quote-meta' },
            h('span', { class: 'muted' }, `${q.inputChain} → ${q.outputChain}`),
            badge(q.status),
            timeEl(q.createdAt, 'short'),
          ),
        ),
      ),
    );
    if (quotes.length === 0 && $('quotes-status').childElementCount === 0) {
      list.append(h('li', { class: 'empty' }, 'No quotes yet.'));
    }
  }

  /** @param {QuoteEvent} event */
  function apply(event) {
    const quote = event.data;
    const index = quotes.findIndex((q) => q.id === quote.id);
    if (index >= 0) quotes[index] = quote;
    else if (event.type === 'quote.created') quotes = [quote, ...quotes].slice(0, QUOTES_LIMIT);
    else return;
    render();
  }

  return { load, render, apply };
}
