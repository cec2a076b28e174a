// @ts-check
// The orders table of the home view (#/): its rows, its count and pager, and the search form above it.
import { $, badge, copyButton, h, showStatus, timeEl } from './dom.js';
import { addressCell, amountEl, chainEl, spreadEl, statusNote } from './elements.js';
import { shortAddress, shortHash, shortId } from './format.js';

/** @typedef {import('./types.js').PublicOrder} PublicOrder */
/** @typedef {import('./types.js').HomeRoute} HomeRoute */

/**
 * What the table shows: a page of orders and its counters (`loaded`: the page arrived; false while loading or
 * after a failure), and the ids of rows changed since the last render (highlighted once).
 * @typedef {object} OrdersPage
 * @property {PublicOrder[]} orders
 * @property {number} total
 * @property {number} totalPages
 * @property {boolean} loaded
 * @property {Set<string>} flash
 */

/** @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ ($(id));

/** @param {string | null} message */
export function setSearchError(message) {
  const q = input('q');
  const error = $('q-error');
  error.textContent = message ?? '';
  error.hidden = !message;
  if (message) q.setAttribute('aria-invalid', 'true');
  else q.removeAttribute('aria-invalid');
}

/** Puts the route's search and page size into the form (unless the user is typing a search). @param {HomeRoute} route */
export function syncSearchForm(route) {
  const { q, search, pageSize } = route;
  const box = input('q');
  if (document.activeElement !== box || box.value === '') box.value = q ?? '';
  setSearchError(search?.error ?? null);
  $('clear-filter').hidden = !q;
  const select = /** @type {HTMLSelectElement} */ ($('page-size'));
  if (![...select.options].some((o) => Number(o.value) === pageSize)) {
    select.append(h('option', { value: pageSize }, String(pageSize)));
  }
  select.value = String(pageSize);
}

/**
 * @param {PublicOrder} order
 * @param {boolean} flash
 */
function orderRow(order, flash) {
  return h(
    'tr',
    { 'data-order-id': order.id, 'data-status': order.status, class: flash ? 'is-new' : null },
    h(
      'th',
      { scope: 'row', 'data-label': 'Order' },
      h('a', { class: 'mono', href: `#/orders/${order.id}`, title: order.id }, shortId(order.id)),
      copyButton(order.id, `order id ${order.id}`),
      h('br'),
      timeEl(order.createdAt, 'short'),
    ),
    h('td', { 'data-label': 'Status' }, badge(order.status), statusNote(order)),
    h(
      'td',
      { 'data-label': 'Sends' },
      amountEl(order.inputChain, order.inputToken, order.inputAmount),
      h('br'),
      chainEl(order.inputChain),
    ),
    h(
      'td',
      { 'data-label': 'Receives' },
      amountEl(order.outputChain, order.outputToken, order.outputAmount),
      h('br'),
      chainEl(order.outputChain),
      spreadEl(order),
    ),
    h(
      'td',
      { 'data-label': 'From → to' },
      addressCell(order.offerer, 'offerer'),
      h('br'),
      addressCell(order.recipient, 'recipient'),
    ),
    h('td', { 'data-label': 'LP' }, order.filler ? addressCell(order.filler, 'liquidity provider') : '—'),
  );
}

/** @param {HomeRoute} route */
function searchLabel(route) {
  if (!route.q) return '';
  const kind = route.search?.kind;
  if (kind === 'address') return ` for ${shortAddress(route.q)}`;
  return ` matching ${kind === 'hash' ? shortHash(route.q) : shortId(route.q)}`;
}

/**
 * Draws the page (and clears its `flash`).
 * @param {HomeRoute} route
 * @param {OrdersPage} page
 */
export function renderOrdersTable(route, { orders, total, totalPages, loaded, flash }) {
  const { q, page, pageSize } = route;
  // Live events re-render the rows: a keyboard user whose focus sat on an order's link keeps it on that order.
  const focused =
    /** @type {HTMLElement | null | undefined} */ (
      document.activeElement?.closest?.('#orders-body tr[data-order-id]')
    )?.dataset.orderId ?? null;
  const body = $('orders-body');
  body.replaceChildren(...orders.map((order) => orderRow(order, flash.has(order.id))));
  if (focused)
    /** @type {HTMLElement | null} */ (
      body.querySelector(`tr[data-order-id="${CSS.escape(focused)}"] th a`)
    )?.focus();
  flash.clear();
  $('orders-table').hidden = !loaded || orders.length === 0;
  $('orders-count').textContent = loaded
    ? `${total.toLocaleString()} ${total === 1 ? 'order' : 'orders'}${searchLabel(route)}`
    : '';
  if (loaded && orders.length === 0) {
    const message = q
      ? `No orders for ${q}${page > 1 ? ' on this page' : ''}.`
      : page > 1
        ? 'No orders on this page.'
        : [
            'No orders yet. New swaps appear here the moment they are created. To make one now on Ferry’s own devnets (',
            h('code', {}, 'npm start'),
            '), run ',
            h('code', { id: 'demo-command' }, `npx ferry demo --api ${location.origin}`),
            ' in the Ferry folder.',
          ];
    showStatus($('orders-status'), 'empty', message);
  }
  $('pager').hidden = !loaded || total === 0;
  const pages = Math.max(1, totalPages);
  $('page-info').textContent = `Page ${page} of ${pages}`;
  /** @type {HTMLButtonElement} */ ($('prev-page')).disabled = page <= 1;
  /** @type {HTMLButtonElement} */ ($('next-page')).disabled = page >= pages;
  /** @type {HTMLSelectElement} */ ($('page-size')).value = String(pageSize);
}
