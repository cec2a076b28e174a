// @ts-check
// DOM building blocks shared by the explorer's views.
import { formatTime } from './format.js';

/**
 * An element of index.html by id (they are all there: a missing one is a bug of the page).
 * @param {string} id
 * @returns {HTMLElement}
 */
/** @typedef {Node | string | number | boolean | null | undefined | unknown[]} Child */

export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Builds an element; text children are always text nodes (never parsed as HTML).
 * @param {string} tag
 * @param {Record<string, any>} [attrs] attributes; `class`, and `on…` event listeners
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
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

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Like h, for SVG elements.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...Child} children
 * @returns {SVGElement}
 */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(key === 'class' ? 'class' : key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** @param {string} status */
export function badge(status) {
  return h('span', { class: `badge badge-${status}` }, status);
}

/**
 * @param {string} iso
 * @param {'full' | 'short' | 'clock'} [style]
 */
export function timeEl(iso, style = 'full') {
  return h(
    'time',
    { datetime: iso, title: style === 'full' ? null : formatTime(iso) },
    formatTime(iso, style),
  );
}

/**
 * Replaces a status area's content with a message (and an optional action button).
 * @param {HTMLElement} container
 * @param {'info' | 'error' | 'empty'} kind
 * @param {string | Array<string | Node> | null} message text, or text with elements (e.g. a command in `code`)
 * @param {{ label: string, run: () => unknown } | null} [action]
 */
export function showStatus(container, kind, message, action) {
  container.replaceChildren();
  if (!message || message.length === 0) return;
  container.append(
    h(
      'div',
      { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : null },
      h('p', {}, message),
      action ? h('button', { type: 'button', class: 'btn', onclick: action.run }, action.label) : null,
    ),
  );
}

/** The clipboard API needs a secure context; elsewhere a hidden text area and execCommand still work. */
async function writeClipboard(text) {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {}
  }
  const area = /** @type {HTMLTextAreaElement} */ (
    h('textarea', { class: 'visually-hidden', readonly: true, 'aria-hidden': 'true' }, text)
  );
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {}
  area.remove();
  return ok;
}

/**
 * A small button that copies `value`; its accessible name says what (`label`), and a polite live region in the
 * button says when it is done.
 */
export function copyButton(value, label) {
  const status = h('span', { class: 'copy-status', 'aria-live': 'polite' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'copy',
      title: `Copy ${label}`,
      'aria-label': `Copy ${label}`,
      'data-copy': value,
      onclick: async () => {
        const ok = await writeClipboard(value);
        button.dataset.copied = ok ? 'true' : 'false';
        status.textContent = ok ? 'Copied' : 'Copy failed';
        setTimeout(() => {
          delete button.dataset.copied;
          status.textContent = '';
        }, 1500);
      },
    },
    h('span', { class: 'copy-icon', 'aria-hidden': 'true' }),
    status,
  );
  return button;
}
