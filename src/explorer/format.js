// @ts-check
// Pure formatting helpers: no DOM, no network.
import { ORDER_STATUSES, orderStatusRank } from './lifecycle.js';
import { orderSearchShape } from './order-search-shape.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Whether `value` is a 0x-prefixed 20-byte hex address (any case). */
export function isAddress(value) {
  return ADDRESS.test(value);
}

/** 0x1234…abcd (first 4 and last 4 hex digits). */
export function shortAddress(address) {
  if (typeof address !== 'string' || address.length < 12) return String(address ?? '');
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** A tx hash or id shortened the same way, keeping a little more of the start. */
export function shortHash(hash) {
  if (typeof hash !== 'string' || hash.length < 16) return String(hash ?? '');
  return `${hash.slice(0, 10)}…${hash.slice(-6)}`;
}

/** ord_…a1b2c3: the prefix and the (random) end of a long id; ids of one period share their middle. */
export function shortId(id) {
  if (typeof id !== 'string' || id.length <= 16) return String(id ?? '');
  const prefix =
    id.indexOf('_') > 0 && id.indexOf('_') < 8 ? id.slice(0, id.indexOf('_') + 1) : id.slice(0, 4);
  return `${prefix}…${id.slice(-6)}`;
}

/**
 * Base units (a decimal integer string, up to 2^256-1) to a decimal string with the token's decimals, exactly:
 * BigInt arithmetic, thousands separated by commas, trailing zeros of the fraction dropped.
 */
export function formatUnits(raw, decimals) {
  let value;
  try {
    value = BigInt(raw);
  } catch {
    return String(raw);
  }
  const negative = value < 0n;
  if (negative) value = -value;
  const places = Number.isInteger(decimals) && decimals > 0 ? decimals : 0;
  const base = 10n ** BigInt(places);
  const whole = (value / base).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = places > 0 ? (value % base).toString().padStart(places, '0').replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Token lookup by chain name and address (case-insensitive), built from GET /api/public/chains. */
export function tokenIndex(chains) {
  const index = new Map();
  for (const chain of chains) {
    for (const token of chain.tokens) index.set(`${chain.name}:${token.address.toLowerCase()}`, token);
  }
  return index;
}

/** `{text, symbol, known}`: "2.5" and "USDC" when the token is in the registry, raw units otherwise. */
export function formatAmount(tokens, chain, tokenAddress, raw) {
  const token = tokens.get(`${chain}:${String(tokenAddress).toLowerCase()}`);
  if (!token)
    return { text: formatUnits(raw, 0), symbol: `units of ${shortAddress(tokenAddress)}`, known: false };
  return { text: formatUnits(raw, token.decimals), symbol: token.symbol, known: true };
}

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

const shortDateTime = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

const STYLES = { full: dateTime, short: shortDateTime, clock };

/**
 * A local, readable date and time: `full` (with the year and seconds), `short` (month, day, hour and minute,
 * for tables) or `clock` (time of day, for the live feed). The ISO value stays in the <time> element's datetime.
 */
export function formatTime(iso, style = 'full') {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : (STYLES[style] ?? dateTime).format(date);
}

/** The explorer link for a tx or address, when the chain has an explorer (`{explorerUrl}/tx/{hash}`). */
export function explorerLink(chain, kind, value) {
  if (!chain?.explorerUrl || !value) return null;
  let base;
  try {
    base = new URL(chain.explorerUrl);
  } catch {
    return null;
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') return null;
  return `${base.href.replace(/\/+$/, '')}/${kind}/${value}`;
}

/** The lifecycle order of statuses (the API's, lifecycle.js): a late or replayed event never moves a row back. */
export function statusRank(status) {
  return ORDER_STATUSES.includes(status) ? orderStatusRank(status) : -1;
}

/** Whether `next` is the same order at the same or a later point of its lifecycle than `current`. */
export function isNewer(current, next) {
  if (!current) return true;
  const byRank = statusRank(next.status) - statusRank(current.status);
  if (byRank !== 0) return byRank > 0;
  return String(next.updatedAt) >= String(current.updatedAt);
}

const SEARCH_ERRORS = {
  'hex-length': 'A 0x value must be an address (40 hex digits) or an order id or tx hash (64 hex digits).',
  'not-an-id': 'Enter an order id, a blockchain order id, a tx hash or an address.',
};

/**
 * What a search text names, by the API's own rules for `q` (order-search-shape.js, compiled from the domain):
 * `{ kind, value }` with kind `address` (0x + 40 hex), `hash` (0x + 64 hex: a blockchain order id or a tx hash)
 * or `orderId`; `{ error }` (a sentence for the search box) for anything else.
 */
/**
 * @param {unknown} text
 * @returns {import('./types.js').SearchClass}
 */
export function classifySearch(text) {
  const shape = orderSearchShape(String(text ?? ''));
  if (shape.kind === 'invalid') return { error: SEARCH_ERRORS[shape.reason] };
  return { kind: shape.kind, value: shape.value };
}

/**
 * The implied spread of an order in tenths of a basis point (bigint), or null when a token is not in the
 * registry: (input − output) / input, both amounts first brought to the same decimals. Positive when the
 * recipient gets less than the offerer sends (the liquidity provider's margin); it assumes both tokens track the
 * same unit (the stablecoins Ferry moves). Rounded half away from zero.
 */
export function spreadTenthsOfBps(tokens, order) {
  const input = tokens.get(`${order.inputChain}:${String(order.inputToken).toLowerCase()}`);
  const output = tokens.get(`${order.outputChain}:${String(order.outputToken).toLowerCase()}`);
  if (!input || !output) return null;
  let a;
  let b;
  try {
    a = BigInt(order.inputAmount);
    b = BigInt(order.outputAmount);
  } catch {
    return null;
  }
  const places = Math.max(input.decimals, output.decimals);
  a *= 10n ** BigInt(places - input.decimals);
  b *= 10n ** BigInt(places - output.decimals);
  if (a <= 0n) return null;
  const scaled = (a - b) * 100_000n;
  let tenths = scaled / a;
  const rest = scaled % a;
  const twice = (rest < 0n ? -rest : rest) * 2n;
  if (twice >= a) tenths += scaled < 0n ? -1n : 1n;
  return tenths;
}

/** "33.3 bps", "-5 bps", "0 bps" from tenths of a basis point. */
export function formatBps(tenths) {
  if (tenths === null || tenths === undefined) return '—';
  const negative = tenths < 0n;
  const abs = negative ? -tenths : tenths;
  const whole = (abs / 10n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = abs % 10n;
  return `${negative ? '−' : ''}${whole}${fraction ? `.${fraction}` : ''} bps`;
}

/** A duration for people: "<1 s", "42 s", "3 min 5 s", "2 h 5 min", "3 d 4 h". */
export function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.floor(ms / 1000);
  if (s < 1) return '<1 s';
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  if (s < 86_400) {
    const m = Math.floor((s % 3600) / 60);
    return m ? `${Math.floor(s / 3600)} h ${m} min` : `${Math.floor(s / 3600)} h`;
  }
  const hours = Math.floor((s % 86_400) / 3600);
  return hours ? `${Math.floor(s / 86_400)} d ${hours} h` : `${Math.floor(s / 86_400)} d`;
}

/** completedAt − createdAt of a completed order, in ms; null otherwise. */
export function timeToComplete(order) {
  if (!order.completedAt) return null;
  const ms = Date.parse(order.completedAt) - Date.parse(order.createdAt);
  return Number.isFinite(ms) ? ms : null;
}

/** A unix-seconds decimal string (a deadline) as an ISO timestamp, or null. */
export function unixToIso(seconds) {
  if (typeof seconds !== 'string' || !/^\d{1,12}$/.test(seconds)) return null;
  return new Date(Number(seconds) * 1000).toISOString();
}
