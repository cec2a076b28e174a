// @ts-check
// Small inline-SVG bar charts: no library. Each chart is an <svg role="img"> named by its <title> and described by
// its <desc>; every bar has its own <title> (a tooltip) and the figure carries the same numbers as a table.
import { h, s } from './dom.js';

const WIDTH = 360;
const HEIGHT = 200;
const PAD = { top: 16, right: 8, bottom: 34, left: 8 };

let chartCount = 0;

/**
 * @typedef {{ label: string, axis?: string, value: number, text: string, short?: string, className?: string }} ColumnBar
 */

/**
 * A column chart. `bars`: `{ label, axis (a shorter label under the axis), value (a number, for the height), text (exact, for
 * people), short (above the bar), className }`.
 * `tick(i)` says whether bar i's label is drawn under the axis (all by default).
 * @param {{ title: string, description: string, bars: ColumnBar[], tick?: (i: number) => boolean }} chart
 */
export function columnChart({ title, description, bars, tick = () => true }) {
  const id = `chart-${++chartCount}`;
  const max = Math.max(0, ...bars.map((b) => b.value));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, bars.length);
  const barW = Math.max(2, Math.min(48, slot * 0.7));
  const baseline = PAD.top + plotH;
  return s(
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-labelledby': `${id}-title ${id}-desc`,
    },
    s('title', { id: `${id}-title` }, title),
    s('desc', { id: `${id}-desc` }, description),
    s('line', { class: 'chart-axis', x1: PAD.left, x2: WIDTH - PAD.right, y1: baseline, y2: baseline }),
    bars.map((bar, i) => {
      const height = max > 0 ? Math.max(bar.value > 0 ? 2 : 0, (bar.value / max) * plotH) : 0;
      const x = PAD.left + slot * i + (slot - barW) / 2;
      const center = x + barW / 2;
      return s(
        'g',
        { class: `chart-bar ${bar.className ?? ''}`, 'data-label': bar.label, 'data-value': bar.text },
        s('title', {}, `${bar.label}: ${bar.text}`),
        s('rect', { x, y: baseline - height, width: barW, height, rx: 2 }),
        bar.value > 0 && bars.length <= 12
          ? s(
              'text',
              { class: 'chart-value', x: center, y: baseline - height - 4, 'text-anchor': 'middle' },
              bar.short ?? bar.text,
            )
          : null,
        tick(i)
          ? s(
              'text',
              { class: 'chart-label', x: center, y: baseline + 14, 'text-anchor': 'middle' },
              bar.axis ?? bar.label,
            )
          : null,
      );
    }),
  );
}

/** A horizontal bar list in HTML (labels of any length wrap on a phone); each bar's width is its share. */
export function barList({ label, rows }) {
  const max = Math.max(0, ...rows.map((r) => r.value));
  return h(
    'ul',
    { class: 'bar-list', 'aria-label': label },
    rows.map((row) =>
      h(
        'li',
        { class: 'bar-row', 'data-label': row.label, 'data-value': String(row.value) },
        h('span', { class: 'bar-name' }, row.name ?? row.label),
        h(
          'span',
          { class: 'bar-track', 'aria-hidden': 'true' },
          s(
            'svg',
            { class: 'bar-svg', viewBox: '0 0 100 10', preserveAspectRatio: 'none', focusable: 'false' },
            s('rect', {
              class: `bar-fill ${row.className ?? ''}`,
              x: 0,
              y: 0,
              height: 10,
              width: max > 0 ? Math.max(row.value > 0 ? 1 : 0, (row.value / max) * 100) : 0,
            }),
          ),
        ),
        h('span', { class: 'bar-value' }, row.text),
      ),
    ),
  );
}

/** The numbers behind a chart, as a table a screen reader (or anyone) can read. */
export function dataTable(caption, headers, rows) {
  return h(
    'details',
    { class: 'chart-data' },
    h('summary', {}, 'Show the numbers'),
    h(
      'table',
      { class: 'data' },
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((x) => h('th', { scope: 'col' }, x)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((c, i) =>
              i === 0 ? h('th', { scope: 'row', class: 'data-cell' }, c) : h('td', { class: 'data-cell' }, c),
            ),
          ),
        ),
      ),
    ),
  );
}
