// @ts-check
// Elements that show orders the same way in every view: amounts with their token, addresses and hashes with
// their chain's explorer link and a copy button, the spread, the deadline or time to completion.
import { copyButton, h, timeEl } from './dom.js';
import {
  explorerLink,
  formatAmount,
  formatBps,
  formatDuration,
  shortAddress,
  spreadTenthsOfBps,
  timeToComplete,
  tokenIndex,
  unixToIso,
} from './format.js';

export const DEFAULT_PAGE_SIZE = 20;

/** The chains and tokens of GET /api/public/chains, once loaded (amounts show in base units until then). */
/**
 * @type {{
 *   chains: import('./types.js').ChainInfo[],
 *   chainByName: Map<string, import('./types.js').ChainInfo>,
 *   tokens: Map<string, { symbol: string, decimals: number }>,
 * }}
 */
export const registry = { chains: [], chainByName: new Map(), tokens: new Map() };

/** @param {import('./types.js').ChainInfo[]} chains */
export function setChains(chains) {
  registry.chains = chains;
  registry.chainByName = new Map(chains.map((c) => [c.name, c]));
  registry.tokens = tokenIndex(chains);
}

export function amountEl(chain, token, raw) {
  const amount = formatAmount(registry.tokens, chain, token, raw);
  return h(
    'span',
    { class: 'amount', title: `${raw} base units` },
    h('span', { class: 'amount-value' }, amount.text),
    ' ',
    h('span', { class: 'amount-symbol' }, amount.symbol),
  );
}

export function chainEl(name) {
  return h('span', { class: 'chain-name' }, name);
}

/** An address in a list: shortened, and a link that filters the orders by it. */
export function addressFilterLink(address) {
  return h(
    'a',
    {
      class: 'mono addr',
      href: homeHash({ q: address }),
      title: address,
      'aria-label': `Orders of ${address}`,
    },
    shortAddress(address),
  );
}

/** A tx hash or address, linked to the chain's block explorer when the registry gives one. */
export function onChain(chainName, kind, value, text = value) {
  const href = explorerLink(registry.chainByName.get(chainName), kind, value);
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

/**
 * The home route's fragment for a search, page and page size (defaults left out).
 * @param {{ q?: string | null, page?: number, pageSize?: number }} [route]
 */
export function homeHash({ q = null, page = 1, pageSize = DEFAULT_PAGE_SIZE } = {}) {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (page > 1) query.set('page', String(page));
  if (pageSize !== DEFAULT_PAGE_SIZE) query.set('pageSize', String(pageSize));
  const text = query.toString();
  return text ? `#/?${text}` : '#/';
}

/** Under the status: how long a completed order took, or the deadline an open one is waiting on. */
export function statusNote(order) {
  const took = timeToComplete(order);
  if (took !== null)
    return h('span', { class: 'note', title: 'completedAt − createdAt' }, `took ${formatDuration(took)}`);
  const deadline =
    order.status === 'created'
      ? ['deposit by', order.openDeadline]
      : order.status === 'deposited'
        ? ['fill by', order.fillDeadline]
        : null;
  const iso = deadline && unixToIso(deadline[1]);
  if (!iso) return null;
  return h('span', { class: 'note' }, `${deadline[0]} `, timeEl(iso, 'clock'));
}

export function spreadEl(order) {
  const tenths = spreadTenthsOfBps(registry.tokens, order);
  return h(
    'span',
    { class: 'spread', title: 'Implied spread: (input − output) / input, in basis points' },
    `spread ${formatBps(tenths)}`,
  );
}

export function addressCell(address, role) {
  return h(
    'span',
    { class: 'addr-cell' },
    addressFilterLink(address),
    copyButton(address, `${role} ${address}`),
  );
}

export function filterLink(address) {
  return h(
    'a',
    { class: 'small', href: homeHash({ q: address }), 'aria-label': `Orders of ${address}` },
    'orders',
  );
}
