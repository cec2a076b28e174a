// @ts-check
// The stats view (#/stats): charts drawn from GET /api/public/stats.
import { getJson } from './api.js';
import { barList, columnChart, dataTable } from './charts.js';
import { $, badge, h, showStatus, timeEl } from './dom.js';
import { formatAmount, formatUnits } from './format.js';

/** @typedef {import('./types.js').PublicStats} PublicStats */

const DAY_MS = 86_400_000;

function bucketLabel({ fromSeconds, toSeconds }) {
  const unit = (sec) => (sec >= 3600 ? `${sec / 3600} h` : sec >= 60 ? `${sec / 60} min` : `${sec} s`);
  if (toSeconds === null) return `≥ ${unit(fromSeconds)}`;
  if (fromSeconds === 0) return `< ${unit(toSeconds)}`;
  const sameUnit = fromSeconds >= 60 === toSeconds >= 60 && fromSeconds >= 3600 === toSeconds >= 3600;
  return sameUnit
    ? `${unit(fromSeconds).split(' ')[0]}–${unit(toSeconds)}`
    : `${unit(fromSeconds)}–${unit(toSeconds)}`;
}

/** Every day of the window, oldest first, as YYYY-MM-DD (UTC): days without volume still get their slot. */
function windowDays(stats) {
  const end = Date.parse(stats.generatedAt);
  const days = [];
  for (let i = stats.windowDays - 1; i >= 0; i -= 1)
    days.push(new Date(end - i * DAY_MS).toISOString().slice(0, 10));
  return days;
}

/** One series per chain pair and input token: volumes of different tokens are never added together. */
function volumeSeries(stats) {
  const series = new Map();
  for (const row of stats.volume) {
    const key = `${row.inputChain}|${row.outputChain}|${row.inputToken.toLowerCase()}`;
    if (!series.has(key)) series.set(key, { ...row, days: new Map() });
    series.get(key).days.set(row.day, row);
  }
  return [...series.values()];
}

function volumeChart(serie, days, tokens) {
  const unit = formatAmount(tokens, serie.inputChain, serie.inputToken, '0');
  const decimals = tokens.get(`${serie.inputChain}:${serie.inputToken.toLowerCase()}`)?.decimals ?? 0;
  const amountText = (raw) =>
    `${formatAmount(tokens, serie.inputChain, serie.inputToken, raw).text} ${unit.symbol}`;
  const bars = days.map((day) => {
    const row = serie.days.get(day);
    const raw = row?.inputAmount ?? '0';
    return {
      label: day.slice(5),
      // Heights only: the exact amount is in the text.
      value: Number(formatUnits(raw, decimals).replaceAll(',', '')),
      text: `${amountText(raw)} in ${row?.orders ?? 0} ${row?.orders === 1 ? 'order' : 'orders'}`,
      className: 'bar-volume',
    };
  });
  const total = [...serie.days.values()].reduce((sum, row) => sum + BigInt(row.inputAmount), 0n);
  const pair = `${serie.inputChain} → ${serie.outputChain}`;
  return h(
    'figure',
    { class: 'chart-figure', 'data-series': `${pair} ${unit.symbol}` },
    h(
      'figcaption',
      {},
      h('strong', {}, `${unit.symbol} ${pair}`),
      ' ',
      h('span', { class: 'muted' }, `${amountText(total.toString())} in ${days.length} days`),
    ),
    columnChart({
      title: `Daily volume, ${unit.symbol} from ${pair}`,
      description: `Completed volume per UTC day over the last ${days.length} days: ${amountText(total.toString())} in total.`,
      bars,
      tick: (i) => i % 7 === (days.length - 1) % 7,
    }),
    dataTable(
      `Daily volume, ${unit.symbol} from ${pair}`,
      ['Day (UTC)', 'Volume', 'Orders'],
      [...serie.days.values()].map((row) => [row.day, amountText(row.inputAmount), String(row.orders)]),
    ),
  );
}

/**
 * @param {PublicStats['data']} stats
 * @param {Map<string, { symbol: string, decimals: number }>} tokens
 */
function volumeSection(stats, tokens) {
  const days = windowDays(stats);
  const series = volumeSeries(stats);
  return h(
    'section',
    { class: 'panel stats-volume', 'aria-labelledby': 'volume-title' },
    h('h3', { id: 'volume-title' }, `Volume per day (last ${stats.windowDays} days)`),
    h(
      'p',
      { class: 'muted small' },
      'Input amounts of completed orders, by UTC day of completion, per chain pair and token.',
    ),
    series.length === 0
      ? h('p', { class: 'empty' }, 'No completed orders in this window yet.')
      : h(
          'div',
          { class: 'chart-grid' },
          series.map((serie) => volumeChart(serie, days, tokens)),
        ),
  );
}

/** @param {PublicStats['data']} stats */
function fillTimeSection(stats) {
  const completedTotal = stats.fillTimes.reduce((sum, b) => sum + b.orders, 0);
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'fill-title' },
    h('h3', { id: 'fill-title' }, 'Time to completion'),
    h(
      'p',
      { class: 'muted small' },
      `completedAt − createdAt of the ${completedTotal} completed ${completedTotal === 1 ? 'order' : 'orders'}.`,
    ),
    h(
      'figure',
      { class: 'chart-figure', 'data-chart': 'fill-times' },
      columnChart({
        title: 'Time to completion',
        description: stats.fillTimes.map((b) => `${bucketLabel(b)}: ${b.orders}`).join('; '),
        bars: stats.fillTimes.map((b) => ({
          label: bucketLabel(b),
          axis: bucketLabel(b).replaceAll(' ', '').replace('min', 'm'),
          value: b.orders,
          text: `${b.orders} ${b.orders === 1 ? 'order' : 'orders'}`,
          short: String(b.orders),
          className: 'bar-fill-time',
        })),
      }),
      dataTable(
        'Time to completion',
        ['Took', 'Orders'],
        stats.fillTimes.map((b) => [bucketLabel(b), String(b.orders)]),
      ),
    ),
  );
}

/** @param {PublicStats['data']} stats */
function outcomesSection(stats) {
  const createdTotal = stats.outcomes.reduce((sum, o) => sum + o.orders, 0);
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'outcomes-title' },
    h('h3', { id: 'outcomes-title' }, 'Outcomes'),
    h(
      'p',
      { class: 'muted small' },
      `The ${createdTotal} ${createdTotal === 1 ? 'order' : 'orders'} created in the window, by status now.`,
    ),
    h(
      'figure',
      { class: 'chart-figure', 'data-chart': 'outcomes' },
      barList({
        label: 'Orders by status',
        rows: stats.outcomes.map((o) => ({
          label: o.status,
          name: badge(o.status),
          value: o.orders,
          text: String(o.orders),
          className: `bar-${o.status}`,
        })),
      }),
    ),
  );
}

export function createStatsView({ tokens }) {
  let current = null;
  let request = 0;
  let reloadTimer = null;

  function render() {
    const body = $('stats-body');
    if (!current) return;
    const stats = current;
    $('stats-updated').replaceChildren('Updated ', timeEl(stats.generatedAt, 'clock'));
    body.replaceChildren(volumeSection(stats, tokens()), fillTimeSection(stats), outcomesSection(stats));
  }

  async function load({ focus = false } = {}) {
    const mine = ++request;
    if (!current) showStatus($('stats-body'), 'info', 'Loading stats…');
    try {
      const body = await getJson('/api/public/stats');
      if (mine !== request) return;
      current = body.data;
      render();
    } catch (error) {
      if (mine !== request) return;
      current = null;
      showStatus(
        $('stats-body'),
        'error',
        `Could not load the stats. ${/** @type {Error} */ (error).message}`,
        {
          label: 'Retry',
          run: () => load(),
        },
      );
    }
    if (focus) $('stats-title').focus();
  }

  return {
    load,
    render,
    /** After an order changes: reload once things settle (the server recomputes at most every few seconds). */
    changed() {
      if (reloadTimer || $('stats').hidden) return;
      reloadTimer = setTimeout(() => {
        reloadTimer = null;
        if (!$('stats').hidden) void load();
      }, 6000);
    },
  };
}
