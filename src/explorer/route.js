// @ts-check
// The explorer's location: parsed from the URL fragment (#/, #/?q=…&page=…, #/orders/{id}, #/stats).
import { DEFAULT_PAGE_SIZE } from './elements.js';
import { classifySearch } from './format.js';

/** @typedef {import('./types.js').Route} Route */
/** @typedef {import('./types.js').HomeRoute} HomeRoute */

const MAX_PAGE_SIZE = 100;

/** The home route before the first parse: the first page of every order. */
export const START_ROUTE = /** @type {HomeRoute} */ ({
  view: 'home',
  q: null,
  search: null,
  page: 1,
  pageSize: DEFAULT_PAGE_SIZE,
});

/**
 * @param {string | null} text
 * @param {number} fallback
 * @param {number} max
 */
function boundedInt(text, fallback, max) {
  if (!text || !/^\d{1,7}$/.test(text)) return fallback;
  const value = Number(text);
  return value >= 1 && value <= max ? value : fallback;
}

/** @returns {Route} */
export function parseRoute() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  const detail = hash.match(/^\/orders\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (detail) return { view: 'detail', id: /** @type {string} */ (detail[1]) };
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

/** @param {Route} route */
export const searchInvalid = (route) => route.view === 'home' && Boolean(route.search?.error);
