// @ts-check
// Ferry explorer: plain ES modules, no framework. Reads the public API and follows /api/public/stream. This file
// wires the views to the route and to the stream's events.
import { loadChains } from './chains-panel.js';
import { $ } from './dom.js';
import { homeHash, registry } from './elements.js';
import { addFeedItem } from './feed.js';
import { classifySearch, shortHash } from './format.js';
import { createOrderDetail } from './order-detail.js';
import { createOrders } from './orders.js';
import { setSearchError, syncSearchForm } from './orders-table.js';
import { createQuotesPanel } from './quotes-panel.js';
import { parseRoute, START_ROUTE } from './route.js';
import { createStatsView } from './stats-view.js';
import { connectStream } from './stream.js';

/** @typedef {import('./types.js').Route} Route */
/** @typedef {import('./types.js').FerryEvent} FerryEvent */

/** @type {{ route: Route, lastHandledEventId: number }} */
const state = { route: START_ROUTE, lastHandledEventId: 0 };

const stats = createStatsView({ tokens: () => registry.tokens });
const detail = createOrderDetail();
const orders = createOrders({ route: () => state.route });
const quotes = createQuotesPanel();

/** @param {boolean} fromNavigation */
function onRouteChange(fromNavigation) {
  const previous = state.route;
  const route = parseRoute();
  state.route = route;
  $('home').hidden = route.view !== 'home';
  $('detail').hidden = route.view !== 'detail';
  $('stats').hidden = route.view !== 'stats';
  for (const link of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.nav a'))) {
    const current = link.dataset.view === (route.view === 'detail' ? 'home' : route.view);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (route.view === 'detail') {
    document.title = `Order ${route.id} · Ferry explorer`;
    void detail.load(route.id, fromNavigation);
    return;
  }
  detail.clear();
  if (route.view === 'stats') {
    document.title = 'Stats · Ferry explorer';
    void stats.load({ focus: fromNavigation });
    return;
  }
  document.title = route.q ? `Search ${shortHash(route.q)} · Ferry explorer` : 'Ferry explorer';
  syncSearchForm(route);
  void orders.load();
  if (fromNavigation && previous.view !== 'home') $('orders-title').focus();
}

function rerenderAll() {
  orders.render();
  quotes.render();
  detail.render();
  stats.render();
}

/** @param {FerryEvent} event */
function handleEvent(event) {
  if (event.id <= state.lastHandledEventId) return;
  state.lastHandledEventId = event.id;
  addFeedItem(event);
  if (
    event.type === 'order.created' ||
    event.type === 'order.updated' ||
    event.type === 'order.attested' ||
    event.type === 'order.exclusivityLapsed'
  ) {
    detail.apply(event);
    orders.apply(event);
    stats.changed();
  } else if (event.type.startsWith('quote.'))
    quotes.apply(/** @type {import('./types.js').QuoteEvent} */ (event));
}

async function refresh() {
  await Promise.all([
    state.route.view === 'home' ? orders.load() : Promise.resolve(),
    state.route.view === 'stats' ? stats.load() : Promise.resolve(),
    quotes.load(),
  ]);
  if (state.route.view === 'detail') await detail.load(state.route.id, false);
}

/** The home route's search and page size (the controls are only shown there). */
const homeRoute = () => /** @type {import('./types.js').HomeRoute} */ (state.route);

/** @param {number} page */
function goToPage(page) {
  const { q, pageSize } = homeRoute();
  location.hash = homeHash({ q, page, pageSize });
}

function wireControls() {
  const q = /** @type {HTMLInputElement} */ ($('q'));
  $('filter').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = q.value.trim();
    if (value === '') {
      location.hash = homeHash({ pageSize: homeRoute().pageSize });
      return;
    }
    const search = classifySearch(value);
    if (search.error) {
      setSearchError(search.error);
      q.focus();
      return;
    }
    setSearchError(null);
    location.hash = homeHash({ q: value, pageSize: homeRoute().pageSize });
  });
  q.addEventListener('input', () => {
    if (q.getAttribute('aria-invalid') === 'true' && !classifySearch(q.value).error) {
      setSearchError(null);
    }
  });
  $('clear-filter').addEventListener('click', () => {
    q.value = '';
    location.hash = homeHash({ pageSize: homeRoute().pageSize });
    q.focus();
  });
  $('prev-page').addEventListener('click', () => goToPage(homeRoute().page - 1));
  $('next-page').addEventListener('click', () => goToPage(homeRoute().page + 1));
  $('page-size').addEventListener('change', (event) => {
    const pageSize = Number(/** @type {HTMLSelectElement} */ (event.target).value);
    location.hash = homeHash({ q: homeRoute().q, page: 1, pageSize });
  });
  window.addEventListener('hashchange', () => onRouteChange(true));
}

async function start() {
  wireControls();
  // The stream first: an order created while the first pages load still arrives (rows are merged by id).
  connectStream({ onEvent: handleEvent, onReset: () => void refresh() });
  state.route = parseRoute();
  const chains = loadChains(rerenderAll);
  onRouteChange(false);
  void quotes.load();
  await chains;
  rerenderAll();
  document.documentElement.dataset.ready = 'true';
}

void start();
