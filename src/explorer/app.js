// Ferry explorer: plain ES module, no framework. Reads the public API and follows /api/public/stream.
import { getJson } from './api.js';
import { $, badge, copyButton, h, showStatus, timeEl } from './dom.js';
import {
  addressCell,
  amountEl,
  chainEl,
  DEFAULT_PAGE_SIZE,
  homeHash,
  onChain,
  registry,
  setChains,
  spreadEl,
  statusNote,
} from './elements.js';
import { classifySearch, formatTime, isNewer, shortAddress, shortHash, shortId } from './format.js';
import { createOrderDetail } from './order-detail.js';
import { createStatsView } from './stats-view.js';
import { connectStream } from './stream.js';

const MAX_PAGE_SIZE = 100;
const FEED_MAX = 30;
const QUOTES_LIMIT = 8;
const state = {
  route: { view: 'home', q: null, search: null, page: 1, pageSize: DEFAULT_PAGE_SIZE },
  orders: [],
  total: 0,
  totalPages: 0,
  ordersLoaded: false,
  ordersRequest: 0,
  ordersLoading: false,
  /** Order events that arrived while a page of orders was loading, applied once it has. */
  pendingOrderEvents: [],
  flash: new Set(),
  quotes: [],
  lastHandledEventId: 0,
};

const stats = createStatsView({ tokens: () => registry.tokens });
const detail = createOrderDetail();

// ---------------------------------------------------------------- routing

function boundedInt(text, fallback, max) {
  if (!text || !/^\d{1,7}$/.test(text)) return fallback;
  const value = Number(text);
  return value >= 1 && value <= max ? value : fallback;
}

function parseRoute() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  const detail = hash.match(/^\/orders\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (detail) return { view: 'detail', id: detail[1] };
  if (/^\/stats\/?$/.test(hash)) return { view: 'stats' };
  const query = new URLSearchParams(hash.split('?')[1] ?? '');
  // `address` is the older link form (before search): the same lookup.
  const q = (query.get('q') ?? query.get('address'))?.trim() || null;
  return {
    view: 'home',
    q,
    search: q === null ? null : classifySearch(q),
    page: boundedInt(query.get('page'), 1, 1_000_000),
    pageSize: boundedInt(query.get('pageSize'), DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
}

const searchInvalid = (route) => Boolean(route.search?.error);

function onRouteChange(fromNavigation) {
  const previous = state.route;
  const route = parseRoute();
  state.route = route;
  $('home').hidden = route.view !== 'home';
  $('detail').hidden = route.view !== 'detail';
  $('stats').hidden = route.view !== 'stats';
  for (const link of document.querySelectorAll('.nav a')) {
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
  syncSearchForm();
  void loadOrders();
  if (fromNavigation && previous.view !== 'home') $('orders-title').focus();
}

// ---------------------------------------------------------------- orders table

function syncSearchForm() {
  const { q, search, pageSize } = state.route;
  const input = $('q');
  if (document.activeElement !== input || input.value === '') input.value = q ?? '';
  setSearchError(search?.error ?? null);
  $('clear-filter').hidden = !q;
  const select = $('page-size');
  if (![...select.options].some((o) => Number(o.value) === pageSize)) {
    select.append(h('option', { value: pageSize }, String(pageSize)));
  }
  select.value = String(pageSize);
}

function setSearchError(message) {
  const input = $('q');
  const error = $('q-error');
  error.textContent = message ?? '';
  error.hidden = !message;
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

async function loadOrders() {
  const { q, page, pageSize } = state.route;
  const request = ++state.ordersRequest;
  const status = $('orders-status');
  if (searchInvalid(state.route)) {
    state.orders = [];
    state.ordersLoaded = false;
    renderOrders();
    showStatus(
      status,
      'error',
      'That is not something the explorer can search for, so nothing was looked up.',
    );
    return;
  }
  if (!state.ordersLoaded) showStatus(status, 'info', 'Loading orders…');
  state.ordersLoading = true;
  const query = new URLSearchParams({ page: String(page), pageSize: String(pageSize) });
  if (q) query.set('q', q);
  try {
    const body = await getJson(`/api/public/orders?${query}`);
    if (request !== state.ordersRequest) return;
    state.orders = body.data.orders;
    state.total = body.total;
    state.totalPages = body.totalPages;
    state.ordersLoaded = true;
    state.ordersLoading = false;
    showStatus(status, 'info', null);
    renderOrders();
    // Events that came while the page loaded: merged by id, so one the page already has changes nothing.
    for (const event of state.pendingOrderEvents.splice(0)) applyOrderEvent(event);
  } catch (error) {
    if (request !== state.ordersRequest) return;
    state.ordersLoading = false;
    state.pendingOrderEvents.length = 0;
    state.orders = [];
    state.ordersLoaded = false;
    renderOrders();
    showStatus(status, 'error', `Could not load orders. ${error.message}`, {
      label: 'Retry',
      run: loadOrders,
    });
  }
}

function orderRow(order) {
  const row = h(
    'tr',
    {
      'data-order-id': order.id,
      'data-status': order.status,
      class: state.flash.has(order.id) ? 'is-new' : null,
    },
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
  return row;
}

function searchLabel(route) {
  if (!route.q) return '';
  const kind = route.search?.kind;
  if (kind === 'address') return ` for ${shortAddress(route.q)}`;
  return ` matching ${kind === 'hash' ? shortHash(route.q) : shortId(route.q)}`;
}

function renderOrders() {
  const { q, page, pageSize } = state.route;
  const table = $('orders-table');
  const loaded = state.ordersLoaded;
  // Live events re-render the rows: a keyboard user whose focus sat on an order's link keeps it on that order.
  const focused =
    document.activeElement?.closest?.('#orders-body tr[data-order-id]')?.dataset.orderId ?? null;
  $('orders-body').replaceChildren(...state.orders.map(orderRow));
  if (focused)
    $('orders-body')
      .querySelector(`tr[data-order-id="${CSS.escape(focused)}"] th a`)
      ?.focus();
  state.flash.clear();
  table.hidden = !loaded || state.orders.length === 0;
  $('orders-count').textContent = loaded
    ? `${state.total.toLocaleString()} ${state.total === 1 ? 'order' : 'orders'}${searchLabel(state.route)}`
    : '';
  if (loaded && state.orders.length === 0) {
    const message = q
      ? `No orders for ${q}${page > 1 ? ' on this page' : ''}.`
      : page > 1
        ? 'No orders on this page.'
        : 'No orders yet. New swaps appear here the moment they are created.';
    showStatus($('orders-status'), 'empty', message);
  }
  const pager = $('pager');
  pager.hidden = !loaded || state.total === 0;
  const totalPages = Math.max(1, state.totalPages);
  $('page-info').textContent = `Page ${page} of ${totalPages}`;
  $('prev-page').disabled = page <= 1;
  $('next-page').disabled = page >= totalPages;
  $('page-size').value = String(pageSize);
}

function goToPage(page) {
  const { q, pageSize } = state.route;
  location.hash = homeHash({ q, page, pageSize });
}

// ---------------------------------------------------------------- quotes and chains

async function loadQuotes() {
  try {
    const body = await getJson(`/api/public/quotes/recent?limit=${QUOTES_LIMIT}`);
    state.quotes = body.data.quotes;
    showStatus($('quotes-status'), 'info', null);
  } catch (error) {
    state.quotes = [];
    showStatus($('quotes-status'), 'error', `Could not load quotes. ${error.message}`, {
      label: 'Retry',
      run: loadQuotes,
    });
  }
  renderQuotes();
}

function renderQuotes() {
  const list = $('quotes');
  list.replaceChildren(
    ...state.quotes.map((q) =>
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
  if (state.quotes.length === 0 && $('quotes-status').childElementCount === 0) {
    list.append(h('li', { class: 'empty' }, 'No quotes yet.'));
  }
}

async function loadChains() {
  try {
    const body = await getJson('/api/public/chains');
    setChains(body.data.chains);
    showStatus($('chains-status'), 'info', null);
  } catch (error) {
    showStatus(
      $('chains-status'),
      'error',
      `Could not load chains; amounts are shown in base units. ${error.message}`,
      { label: 'Retry', run: () => loadChains().then(rerenderAll) },
    );
  }
  renderChains();
}

function renderChains() {
  $('chains').replaceChildren(
    ...registry.chains.map((chain) =>
      h(
        'article',
        { class: 'chain', 'data-chain': chain.name },
        h('h3', {}, chain.name, ' ', h('span', { class: 'muted chain-id' }, `chain id ${chain.chainId}`)),
        h(
          'dl',
          { class: 'kv' },
          h('dt', {}, 'Escrow'),
          h('dd', {}, onChain(chain.name, 'address', chain.escrow, shortAddress(chain.escrow))),
          h('dt', {}, 'Fill'),
          h('dd', {}, onChain(chain.name, 'address', chain.fill, shortAddress(chain.fill))),
          h('dt', {}, 'Confirmations'),
          h('dd', {}, String(chain.confirmations)),
          chain.explorerUrl
            ? [
                h('dt', {}, 'Explorer'),
                h(
                  'dd',
                  {},
                  h('a', { href: chain.explorerUrl, target: '_blank', rel: 'noopener noreferrer' }, 'Open'),
                ),
              ]
            : null,
        ),
        h(
          'table',
          { class: 'tokens' },
          h('caption', { class: 'visually-hidden' }, `Tokens on ${chain.name}`),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Token'),
              h('th', { scope: 'col' }, 'Decimals'),
              h('th', { scope: 'col' }, 'Address'),
            ),
          ),
          h(
            'tbody',
            {},
            chain.tokens.map((t) =>
              h(
                'tr',
                {},
                h('th', { scope: 'row' }, t.symbol),
                h('td', {}, String(t.decimals)),
                h('td', {}, onChain(chain.name, 'address', t.address, shortAddress(t.address))),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function rerenderAll() {
  renderOrders();
  renderQuotes();
  detail.render();
  stats.render();
}

// ---------------------------------------------------------------- live stream

function feedText(event) {
  const d = event.data ?? {};
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
      return ['Order ', link(d.id), ' is now ', badge(d.status)];
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
      return [event.type];
  }
}

function addFeedItem(event) {
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
  while (list.childElementCount > FEED_MAX) list.lastElementChild.remove();
  $('feed-empty').hidden = true;
}

function matchesFilter(order) {
  const { q, search } = state.route;
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

function applyOrderEvent(event) {
  const order = event.data;
  detail.apply(event);
  if (state.route.view !== 'home' || searchInvalid(state.route)) return;
  if (state.ordersLoading) {
    state.pendingOrderEvents.push(event);
    return;
  }
  if (!state.ordersLoaded) return;
  const index = state.orders.findIndex((o) => o.id === order.id);
  if (index >= 0) {
    if (!isNewer(state.orders[index], order)) return;
    state.orders[index] = order;
    state.flash.add(order.id);
    renderOrders();
    return;
  }
  if (event.type !== 'order.created' || !matchesFilter(order)) return;
  state.total += 1;
  state.totalPages = Math.ceil(state.total / state.route.pageSize);
  if (state.route.page === 1) {
    state.orders.unshift(order);
    state.orders.length = Math.min(state.orders.length, state.route.pageSize);
    state.flash.add(order.id);
  }
  if (state.orders.length > 0) showStatus($('orders-status'), 'info', null);
  renderOrders();
}

function applyQuoteEvent(event) {
  const quote = event.data;
  const index = state.quotes.findIndex((q) => q.id === quote.id);
  if (index >= 0) state.quotes[index] = quote;
  else if (event.type === 'quote.created') state.quotes = [quote, ...state.quotes].slice(0, QUOTES_LIMIT);
  else return;
  renderQuotes();
}

function handleEvent(event) {
  if (event.id <= state.lastHandledEventId) return;
  state.lastHandledEventId = event.id;
  addFeedItem(event);
  if (event.type === 'order.created' || event.type === 'order.updated') {
    applyOrderEvent(event);
    stats.changed();
  } else if (event.type.startsWith('quote.')) applyQuoteEvent(event);
}

async function refresh() {
  await Promise.all([
    state.route.view === 'home' ? loadOrders() : Promise.resolve(),
    state.route.view === 'stats' ? stats.load() : Promise.resolve(),
    loadQuotes(),
  ]);
  if (state.route.view === 'detail') await detail.load(state.route.id, false);
}

// ---------------------------------------------------------------- wiring

function wireControls() {
  $('filter').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('q').value.trim();
    if (value === '') {
      location.hash = homeHash({ pageSize: state.route.pageSize });
      return;
    }
    const search = classifySearch(value);
    if (search.error) {
      setSearchError(search.error);
      $('q').focus();
      return;
    }
    setSearchError(null);
    location.hash = homeHash({ q: value, pageSize: state.route.pageSize });
  });
  $('q').addEventListener('input', () => {
    if ($('q').getAttribute('aria-invalid') === 'true' && !classifySearch($('q').value).error) {
      setSearchError(null);
    }
  });
  $('clear-filter').addEventListener('click', () => {
    $('q').value = '';
    location.hash = homeHash({ pageSize: state.route.pageSize });
    $('q').focus();
  });
  $('prev-page').addEventListener('click', () => goToPage(state.route.page - 1));
  $('next-page').addEventListener('click', () => goToPage(state.route.page + 1));
  $('page-size').addEventListener('change', (event) => {
    location.hash = homeHash({ q: state.route.q, page: 1, pageSize: Number(event.target.value) });
  });
  window.addEventListener('hashchange', () => onRouteChange(true));
}

async function start() {
  wireControls();
  // The stream first: an order created while the first pages load still arrives (rows are merged by id).
  connectStream({ onEvent: handleEvent, onReset: () => void refresh() });
  state.route = parseRoute();
  const chains = loadChains();
  onRouteChange(false);
  void loadQuotes();
  await chains;
  rerenderAll();
  document.documentElement.dataset.ready = 'true';
}

void start();
