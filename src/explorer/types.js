// @ts-check
// The explorer's data types, from the SDK's (themselves generated from the server's OpenAPI document), so the
// explorer is checked against what the API really answers. Types only: nothing here runs.

/** @typedef {import('../../sdk/src/types.ts').PublicOrder} PublicOrder */
/** @typedef {import('../../sdk/src/types.ts').PublicQuote} PublicQuote */
/** @typedef {import('../../sdk/src/types.ts').PublicQuoteRequest} PublicQuoteRequest */
/** @typedef {import('../../sdk/src/types.ts').ChainInfo} ChainInfo */
/** @typedef {import('../../sdk/src/types.ts').TokenInfo} TokenInfo */
/** @typedef {import('../../sdk/src/types.ts').PublicStats} PublicStats */
/** @typedef {import('../../sdk/src/types.ts').FerryEvent} FerryEvent */
/** @typedef {Extract<FerryEvent, { data: PublicOrder }>} OrderEvent */
/** @typedef {Extract<FerryEvent, { data: PublicQuote }>} QuoteEvent */

/**
 * What a search text names (format.js classifySearch): a kind and the text, or a sentence for the search box.
 * @typedef {{ kind: 'address' | 'hash' | 'orderId', value: string, error?: undefined }
 *   | { error: string, kind?: undefined, value?: undefined }} SearchClass
 */

/**
 * Where the page is (route.js): an order, the stats, or the orders list with its search and page.
 * @typedef {{ view: 'detail', id: string }
 *   | { view: 'stats' }
 *   | { view: 'home', q: string | null, search: SearchClass | null, page: number, pageSize: number }} Route
 */
/** @typedef {Extract<Route, { view: 'home' }>} HomeRoute */

export {};
