// @ts-check
// The order view (#/orders/{id}): the order in full, its transactions and its timeline, kept live by the stream.
import { getJson } from './api.js';
import { $ } from './dom.js';
import { isNewer } from './format.js';
import { drawDetail } from './order-detail-view.js';

/** @typedef {import('./types.js').OrderEvent} OrderEvent */
/** @typedef {import('./order-detail-view.js').DetailState} DetailState */

/**
 * @typedef {object} OrderDetail
 * @property {(id: string, focus: boolean) => Promise<void>} load Loads order `id` (focusing its title when asked).
 * @property {() => void} render Draws the order on screen, if any.
 * @property {() => void} clear No order on screen (another view).
 * @property {(event: OrderEvent) => void} apply An order event from the stream: merged into the order on screen
 *   when it is that order.
 */

/** @returns {OrderDetail} */
export function createOrderDetail() {
  /** @type {DetailState | null} */
  let detail = null;
  let request = 0;

  /**
   * @param {string} id
   * @param {boolean} focus
   */
  async function load(id, focus) {
    const mine = ++request;
    if (detail?.id !== id) detail = { id, order: null, events: [], error: null };
    render();
    try {
      /** @type {import('../../sdk/src/types.ts').PublicOrderDetail} */
      const body = await getJson(`/api/public/orders/${encodeURIComponent(id)}`);
      if (mine !== request) return;
      // `detail` is still this order's unless clear() ran meanwhile (then this throws, and the error is kept).
      const current = /** @type {DetailState} */ (detail);
      const known = current.events;
      /** @type {OrderEvent[]} */
      const events = [...body.data.events];
      for (const e of known) if (!events.some((x) => x.id === e.id)) events.push(e);
      events.sort((a, b) => a.id - b.id);
      const seen = current.order;
      const order = seen && isNewer(body.data.order, seen) ? seen : body.data.order;
      detail = { id, order, events, error: null };
    } catch (error) {
      if (mine !== request) return;
      detail = { id, order: null, events: [], error: /** @type {Error} */ (error) };
    }
    render();
    if (focus) $('detail-title').focus();
  }

  function render() {
    if (!detail) return;
    const { id } = detail;
    drawDetail(detail, () => load(id, false));
  }

  return {
    load,
    render,
    clear() {
      detail = null;
    },
    apply(event) {
      const order = event.data;
      if (detail?.id !== order.id || detail.error) return;
      if (!detail.events.some((e) => e.id === event.id)) {
        detail.events.push(event);
        detail.events.sort((a, b) => a.id - b.id);
      }
      if (isNewer(detail.order, order)) detail.order = order;
      render();
    },
  };
}
