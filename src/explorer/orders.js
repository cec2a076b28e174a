// @ts-check
// The home view's orders (#/): one page of GET /api/public/orders, kept live by the stream's order events.
import { getJson } from './api.js';
import { $, showStatus } from './dom.js';
import { isNewer } from './format.js';
import { renderOrdersTable } from './orders-table.js';
import { searchInvalid } from './route.js';

/** @typedef {import('./types.js').PublicOrder} PublicOrder */
/** @typedef {import('./types.js').OrderEvent} OrderEvent */
/** @typedef {import('./types.js').Route} Route */
/** @typedef {import('./types.js').HomeRoute} HomeRoute */

/**
 * @typedef {object} OrdersList
 * @property {() => Promise<void>} load Loads the route's page (a newer load wins over an older one).
 * @property {() => void} render Draws what is loaded.
 * @property {(event: OrderEvent) => void} apply An order event: updates its row, or adds a new order that matches.
 */

/**
 * Whether a new order belongs in the list the route shows (the same matching as the API's `q`).
 * @param {HomeRoute} route
 * @param {PublicOrder} order
 */
function matchesFilter(route, order) {
  const { q, search } = route;
  if (!q) return true;
  const value = q.toLowerCase();
  if (search?.kind === 'address') {
    return [order.offerer, order.recipient, order.filler].some((a) => a?.toLowerCase() === value);
  }
  if (search?.kind === 'hash') {
    return [order.blockchainOrderId, order.srcChainTxHash, order.dstChainTxHash, order.settlementTxHash].some(
      (x) => x?.toLowerCase() === value,
    );
  }
  return order.id === q;
}

/**
 * @param {{ route: () => Route }} deps The current route. The list is drawn under any route (a redraw of every
 *   view after the chains load) but shown, loaded and changed only under the home route.
 * @returns {OrdersList}
 */
export function createOrders({ route }) {
  const home = () => /** @type {HomeRoute} */ (route());
  const state = {
    /** @type {PublicOrder[]} */
    orders: [],
    total: 0,
    totalPages: 0,
    loaded: false,
    request: 0,
    loading: false,
    /** @type {OrderEvent[]} Order events that arrived while a page of orders was loading, applied once it has. */
    pending: [],
    /** @type {Set<string>} */
    flash: new Set(),
  };

  const render = () => renderOrdersTable(home(), state);

  async function load() {
    const { q, page, pageSize } = home();
    const request = ++state.request;
    const status = $('orders-status');
    if (searchInvalid(home())) {
      state.orders = [];
      state.loaded = false;
      render();
      showStatus(
        status,
        'error',
        'That is not something the explorer can search for, so nothing was looked up.',
      );
      return;
    }
    if (!state.loaded) showStatus(status, 'info', 'Loading orders…');
    state.loading = true;
    const query = new URLSearchParams({ page: String(page), pageSize: String(pageSize) });
    if (q) query.set('q', q);
    try {
      /** @type {import('../../sdk/src/types.ts').PublicOrderPage} */
      const body = await getJson(`/api/public/orders?${query}`);
      if (request !== state.request) return;
      state.orders = body.data.orders;
      state.total = body.total;
      state.totalPages = body.totalPages;
      state.loaded = true;
      state.loading = false;
      showStatus(status, 'info', null);
      render();
      // Events that came while the page loaded: merged by id, so one the page already has changes nothing.
      for (const event of state.pending.splice(0)) apply(event);
    } catch (error) {
      if (request !== state.request) return;
      state.loading = false;
      state.pending.length = 0;
      state.orders = [];
      state.loaded = false;
      render();
      showStatus(status, 'error', `Could not load orders. ${/** @type {Error} */ (error).message}`, {
        label: 'Retry',
        run: load,
      });
    }
  }

  /** @param {OrderEvent} event */
  function apply(event) {
    const order = event.data;
    const current = route();
    if (current.view !== 'home' || searchInvalid(current)) return;
    if (state.loading) {
      state.pending.push(event);
      return;
    }
    if (!state.loaded) return;
    const index = state.orders.findIndex((o) => o.id === order.id);
    if (index >= 0) {
      if (!isNewer(state.orders[index], order)) return;
      state.orders[index] = order;
      state.flash.add(order.id);
      render();
      return;
    }
    if (event.type !== 'order.created' || !matchesFilter(current, order)) return;
    state.total += 1;
    state.totalPages = Math.ceil(state.total / current.pageSize);
    if (current.page === 1) {
      state.orders.unshift(order);
      state.orders.length = Math.min(state.orders.length, current.pageSize);
      state.flash.add(order.id);
    }
    if (state.orders.length > 0) showStatus($('orders-status'), 'info', null);
    render();
  }

  return { load, render, apply };
}
