// Ferry explorer: plain ES module, no framework. Reads the public API and follows /api/public/stream.
import {
  explorerLink,
  formatAmount,
  formatTime,
  isAddress,
  isNewer,
  shortAddress,
  shortHash,
  shortId,
  tokenIndex,
} from './format.js';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const FEED_MAX = 30;
const QUOTES_LIMIT = 8;
const STREAM_EVENT_TYPES = [
  'order.created',
  'order.updated',
  'quote.created',
  'quote.accepted',
  'quote.declined',
  'quote.expired',
  'quoteRequest.created',
  'quoteRequest.expired',
];

const $ = (id) => document.getElementById(id);

const state = {
  chains: [],
  chainByName: new Map(),
  tokens: new Map(),
  route: { view: 'home', address: null, addressInvalid: false, page: 1, pageSize: DEFAULT_PAGE_SIZE },
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
  detail: null,
  detailRequest: 0,
  lastHandledEventId: 0,
};

// ---------------------------------------------------------------- DOM helpers

/** Builds an element; text children are always text nodes (never parsed as HTML). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

function badge(status) {
  return h('span', { class: `badge badge-${status}` }, status);
}

function timeEl(iso, style = 'full') {
  return h(
    'time',
    { datetime: iso, title: style === 'full' ? null : formatTime(iso) },
    formatTime(iso, style),
  );
}

function amountEl(chain, token, raw) {
  const amount = formatAmount(state.tokens, chain, token, raw);
  return h(
    'span',
    { class: 'amount', title: `${raw} base units` },
    h('span', { class: 'amount-value' }, amount.text),
    ' ',
    h('span', { class: 'amount-symbol' }, amount.symbol),
  );
}

function chainEl(name) {
  return h('span', { class: 'chain-name' }, name);
}

/** An address in a list: shortened, and a link that filters the orders by it. */
function addressFilterLink(address) {
  return h(
    'a',
    { class: 'mono addr', href: homeHash({ address }), title: address, 'aria-label': `Orders of ${address}` },
    shortAddress(address),
  );
}

/** A tx hash or address, linked to the chain's block explorer when the registry gives one. */
function onChain(chainName, kind, value, text = value) {
  const href = explorerLink(state.chainByName.get(chainName), kind, value);
  if (!href) return h('code', { class: 'mono hash' }, text);
  return h(
    'a',
    {
      class: 'mono hash',
      href,
      target: '_blank',
      rel: 'noopener noreferrer',
      title: `View on ${chainName} explorer`,
    },
    text,
  );
}

/** Replaces a status area's content with a message (and an optional action button). */
function showStatus(container, kind, message, action) {
  container.replaceChildren();
  if (!message) return;
  container.append(
    h(
      'div',
      { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : null },
      h('p', {}, message),
      action ? h('button', { type: 'button', class: 'btn', onclick: action.run }, action.label) : null,
    ),
  );
}

// ---------------------------------------------------------------- API

class ApiError extends Error {
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function getJson(path) {
  let response;
  try {
    response = await fetch(path, { headers: { accept: 'application/json' } });
  } catch {
    throw new ApiError('The Ferry API is unreachable. Check your connection, then retry.', null, 0);
  }
  let body = null;
  try {
    body = await response.json();
  } catch {}
  if (!response.ok) {
    const message =
      response.status === 429
        ? 'Too many requests for now: wait a minute, then retry.'
        : (body?.error ?? `The API answered HTTP ${response.status}.`);
    throw new ApiError(message, body?.code ?? null, response.status);
  }
  return body;
}

// ---------------------------------------------------------------- routing

function homeHash({ address = null, page = 1, pageSize = DEFAULT_PAGE_SIZE } = {}) {
  const query = new URLSearchParams();
  if (address) query.set('address', address);
  if (page > 1) query.set('page', String(page));
  if (pageSize !== DEFAULT_PAGE_SIZE) query.set('pageSize', String(pageSize));
  const text = query.toString();
  return text ? `#/?${text}` : '#/';
}

function boundedInt(text, fallback, max) {
  if (!text || !/^\d{1,7}$/.test(text)) return fallback;
  const value = Number(text);
  return value >= 1 && value <= max ? value : fallback;
}

function parseRoute() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  const detail = hash.match(/^\/orders\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (detail) return { view: 'detail', id: detail[1] };
  const query = new URLSearchParams(hash.split('?')[1] ?? '');
  const address = query.get('address')?.trim() || null;
  return {
    view: 'home',
    address,
    addressInvalid: address !== null && !isAddress(address),
    page: boundedInt(query.get('page'), 1, 1_000_000),
    pageSize: boundedInt(query.get('pageSize'), DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
}

function onRouteChange(fromNavigation) {
  const previous = state.route;
  const route = parseRoute();
  state.route = route;
  $('home').hidden = route.view !== 'home';
  $('detail').hidden = route.view !== 'detail';
  if (route.view === 'detail') {
    document.title = `Order ${route.id} · Ferry explorer`;
    void loadDetail(route.id, fromNavigation);
    return;
  }
  document.title = route.address
    ? `Orders of ${shortAddress(route.address)} · Ferry explorer`
    : 'Ferry explorer';
  state.detail = null;
  syncFilterForm();
  void loadOrders();
  if (fromNavigation && previous.view === 'detail') $('orders-title').focus();
}

// ---------------------------------------------------------------- orders table

function syncFilterForm() {
  const { address, addressInvalid, pageSize } = state.route;
  const input = $('address');
  if (document.activeElement !== input || input.value === '') input.value = address ?? '';
  setAddressError(addressInvalid ? 'Enter a 0x-prefixed address of 40 hex digits.' : null);
  $('clear-filter').hidden = !address;
  const select = $('page-size');
  if (![...select.options].some((o) => Number(o.value) === pageSize)) {
    select.append(h('option', { value: pageSize }, String(pageSize)));
  }
  select.value = String(pageSize);
}

function setAddressError(message) {
  const input = $('address');
  const error = $('address-error');
  error.textContent = message ?? '';
  error.hidden = !message;
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

async function loadOrders() {
  const { address, addressInvalid, page, pageSize } = state.route;
  const request = ++state.ordersRequest;
  const status = $('orders-status');
  if (addressInvalid) {
    state.orders = [];
    state.ordersLoaded = false;
    renderOrders();
    showStatus(status, 'error', 'That is not a valid address, so no orders were looked up.');
    return;
  }
  if (!state.ordersLoaded) showStatus(status, 'info', 'Loading orders…');
  state.ordersLoading = true;
  const query = new URLSearchParams({ page: String(page), pageSize: String(pageSize) });
  if (address) query.set('address', address);
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
    ),
    h('td', { 'data-label': 'Status' }, badge(order.status)),
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
    ),
    h('td', { 'data-label': 'Offerer' }, addressFilterLink(order.offerer)),
    h('td', { 'data-label': 'Recipient' }, addressFilterLink(order.recipient)),
    h('td', { 'data-label': 'Created' }, timeEl(order.createdAt, 'short')),
  );
  return row;
}

function renderOrders() {
  const { address, page, pageSize } = state.route;
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
    ? `${state.total.toLocaleString()} ${state.total === 1 ? 'order' : 'orders'}${address ? ` for ${shortAddress(address)}` : ''}`
    : '';
  if (loaded && state.orders.length === 0) {
    const message = address
      ? `No orders for ${address}${page > 1 ? ' on this page' : ''}.`
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
  const { address, pageSize } = state.route;
  location.hash = homeHash({ address, page, pageSize });
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
    state.chains = body.data.chains;
    state.chainByName = new Map(state.chains.map((c) => [c.name, c]));
    state.tokens = tokenIndex(state.chains);
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
    ...state.chains.map((chain) =>
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
  if (state.detail) renderDetail();
}

// ---------------------------------------------------------------- order detail

async function loadDetail(id, focus) {
  const request = ++state.detailRequest;
  if (state.detail?.id !== id) state.detail = { id, order: null, events: [], error: null };
  renderDetail();
  try {
    const body = await getJson(`/api/public/orders/${encodeURIComponent(id)}`);
    if (request !== state.detailRequest) return;
    const known = state.detail.events;
    const events = [...body.data.events];
    for (const e of known) if (!events.some((x) => x.id === e.id)) events.push(e);
    events.sort((a, b) => a.id - b.id);
    const seen = state.detail.order;
    const order = seen && isNewer(body.data.order, seen) ? seen : body.data.order;
    state.detail = { id, order, events, error: null };
  } catch (error) {
    if (request !== state.detailRequest) return;
    state.detail = { id, order: null, events: [], error };
  }
  renderDetail();
  if (focus) $('detail-title').focus();
}

const STEP_TEXT = {
  created: (o) => `Signed order submitted: ${o.inputChain} → ${o.outputChain}`,
  deposited: (o) => `Input locked in escrow on ${o.inputChain}`,
  filled: (o) => `Output delivered to the recipient on ${o.outputChain}`,
  completed: (o) => `Escrow released to the liquidity provider on ${o.inputChain}`,
  failed: (o) => `Failed${o.failureReason ? `: ${o.failureReason}` : ''}`,
  refunded: (o) => `Input refunded to the offerer on ${o.inputChain}`,
};

/** The tx a status change brought: the deposit, the fill, or the settlement / refund. */
function stepTx(order) {
  if (order.status === 'deposited' && order.srcChainTxHash) return [order.inputChain, order.srcChainTxHash];
  if (order.status === 'filled' && order.dstChainTxHash) return [order.outputChain, order.dstChainTxHash];
  if ((order.status === 'completed' || order.status === 'refunded') && order.settlementTxHash) {
    return [order.inputChain, order.settlementTxHash];
  }
  return null;
}

/** From the order's events; without any (an older log), from its timestamps. */
function timelineSteps(detail) {
  if (detail.events.length > 0) {
    return detail.events.map((e) => ({ key: `e${e.id}`, at: e.occurredAt, order: e.data }));
  }
  const { order } = detail;
  const steps = [{ key: 'created', at: order.createdAt, order: { ...order, status: 'created' } }];
  if (order.status !== 'created') steps.push({ key: 'now', at: order.updatedAt, order });
  return steps;
}

function txRow(label, chainName, hash, pendingText) {
  return h(
    'li',
    { class: 'tx' },
    h('span', { class: 'tx-label' }, label, ' ', h('span', { class: 'muted' }, `(${chainName})`)),
    hash ? onChain(chainName, 'tx', hash, hash) : h('span', { class: 'muted' }, pendingText),
  );
}

function renderDetail() {
  const detail = state.detail;
  const body = $('detail-body');
  const title = $('detail-title');
  if (!detail) return;
  title.replaceChildren('Order ', h('code', { class: 'mono order-id' }, detail.id));
  if (detail.error) {
    const notFound = detail.error.code === 'ORDER_NOT_FOUND';
    body.replaceChildren();
    showStatus(
      body,
      'error',
      notFound
        ? 'No order has this id. Check the link, or go back to the list.'
        : `Could not load this order. ${detail.error.message}`,
      notFound ? null : { label: 'Retry', run: () => loadDetail(detail.id, false) },
    );
    return;
  }
  const order = detail.order;
  if (!order) {
    showStatus(body, 'info', 'Loading order…');
    return;
  }
  title.append(' ', badge(order.status));
  const refunded = order.status === 'refunded';
  const terminal = ['completed', 'failed', 'refunded'].includes(order.status);
  body.replaceChildren(
    h(
      'div',
      { class: 'detail-grid' },
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'summary-title' },
        h('h3', { id: 'summary-title' }, 'Summary'),
        h(
          'dl',
          { class: 'kv kv-wide' },
          h('dt', {}, 'Status'),
          h('dd', {}, badge(order.status), order.failureReason ? ` ${order.failureReason}` : ''),
          h('dt', {}, 'Sends'),
          h(
            'dd',
            {},
            amountEl(order.inputChain, order.inputToken, order.inputAmount),
            ` on ${order.inputChain}`,
          ),
          h('dt', {}, 'Receives'),
          h(
            'dd',
            {},
            amountEl(order.outputChain, order.outputToken, order.outputAmount),
            ` on ${order.outputChain}`,
          ),
          h('dt', {}, 'Offerer'),
          h('dd', {}, onChain(order.inputChain, 'address', order.offerer), ' ', filterLink(order.offerer)),
          h('dt', {}, 'Recipient'),
          h(
            'dd',
            {},
            onChain(order.outputChain, 'address', order.recipient),
            ' ',
            filterLink(order.recipient),
          ),
          h('dt', {}, 'Created'),
          h('dd', {}, timeEl(order.createdAt)),
          h('dt', {}, 'Last update'),
          h('dd', {}, timeEl(order.updatedAt)),
        ),
      ),
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'tx-title' },
        h('h3', { id: 'tx-title' }, 'Transactions'),
        h(
          'ul',
          { class: 'txs' },
          txRow(
            'Source deposit',
            order.inputChain,
            order.srcChainTxHash,
            terminal ? 'none' : 'pending: waiting for the deposit',
          ),
          txRow(
            'Destination fill',
            order.outputChain,
            order.dstChainTxHash,
            terminal ? 'none' : 'pending: waiting for the liquidity provider',
          ),
          txRow(
            refunded ? 'Refund' : 'Settlement',
            order.inputChain,
            order.settlementTxHash,
            terminal ? 'none' : 'pending',
          ),
        ),
      ),
      h(
        'section',
        { class: 'panel timeline-panel', 'aria-labelledby': 'timeline-title' },
        h('h3', { id: 'timeline-title' }, 'Timeline'),
        h(
          'ol',
          { class: 'timeline', 'aria-live': 'polite' },
          timelineSteps(detail).map((step) => {
            const tx = stepTx(step.order);
            return h(
              'li',
              { class: `step step-${step.order.status}`, 'data-status': step.order.status },
              h('div', { class: 'step-head' }, badge(step.order.status), ' ', timeEl(step.at)),
              h('p', { class: 'step-text' }, STEP_TEXT[step.order.status]?.(step.order) ?? step.order.status),
              tx ? h('p', { class: 'step-tx' }, 'tx ', onChain(tx[0], 'tx', tx[1], shortHash(tx[1]))) : null,
            );
          }),
        ),
        terminal ? null : h('p', { class: 'muted' }, 'Updates appear here live.'),
      ),
    ),
  );
}

function filterLink(address) {
  return h(
    'a',
    { class: 'small', href: homeHash({ address }), 'aria-label': `Orders of ${address}` },
    'orders',
  );
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
  const address = state.route.address?.toLowerCase();
  if (!address) return true;
  return order.offerer.toLowerCase() === address || order.recipient.toLowerCase() === address;
}

function applyOrderEvent(event) {
  const order = event.data;
  const detail = state.detail;
  if (detail?.id === order.id && !detail.error) {
    if (!detail.events.some((e) => e.id === event.id)) {
      detail.events.push(event);
      detail.events.sort((a, b) => a.id - b.id);
    }
    if (isNewer(detail.order, order)) detail.order = order;
    renderDetail();
  }
  if (state.route.view !== 'home' || state.route.addressInvalid) return;
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
  if (event.type === 'order.created' || event.type === 'order.updated') applyOrderEvent(event);
  else if (event.type.startsWith('quote.')) applyQuoteEvent(event);
}

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
function connectStream() {
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
      void refresh();
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

async function refresh() {
  await Promise.all([state.route.view === 'home' ? loadOrders() : Promise.resolve(), loadQuotes()]);
  if (state.route.view === 'detail') await loadDetail(state.route.id, false);
}

// ---------------------------------------------------------------- wiring

function wireControls() {
  $('filter').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('address').value.trim();
    if (value === '') {
      location.hash = homeHash({ pageSize: state.route.pageSize });
      return;
    }
    if (!isAddress(value)) {
      setAddressError('Enter a 0x-prefixed address of 40 hex digits.');
      $('address').focus();
      return;
    }
    setAddressError(null);
    location.hash = homeHash({ address: value, pageSize: state.route.pageSize });
  });
  $('address').addEventListener('input', () => {
    if ($('address').getAttribute('aria-invalid') === 'true' && isAddress($('address').value.trim())) {
      setAddressError(null);
    }
  });
  $('clear-filter').addEventListener('click', () => {
    $('address').value = '';
    location.hash = homeHash({ pageSize: state.route.pageSize });
    $('address').focus();
  });
  $('prev-page').addEventListener('click', () => goToPage(state.route.page - 1));
  $('next-page').addEventListener('click', () => goToPage(state.route.page + 1));
  $('page-size').addEventListener('change', (event) => {
    location.hash = homeHash({ address: state.route.address, page: 1, pageSize: Number(event.target.value) });
  });
  window.addEventListener('hashchange', () => onRouteChange(true));
}

async function start() {
  wireControls();
  // The stream first: an order created while the first pages load still arrives (rows are merged by id).
  connectStream();
  state.route = parseRoute();
  const chains = loadChains();
  onRouteChange(false);
  void loadQuotes();
  await chains;
  rerenderAll();
  document.documentElement.dataset.ready = 'true';
}

void start();
