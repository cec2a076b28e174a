// The order view (#/orders/{id}): the order in full, its transactions and its timeline, kept live by the stream.
import { getJson } from './api.js';
import { $, badge, copyButton, h, showStatus, timeEl } from './dom.js';
import { amountEl, filterLink, onChain, registry } from './elements.js';
import {
  formatBps,
  formatDuration,
  isNewer,
  shortHash,
  spreadTenthsOfBps,
  timeToComplete,
  unixToIso,
} from './format.js';

export function createOrderDetail() {
  let detail = null;
  let request = 0;

  async function load(id, focus) {
    const mine = ++request;
    if (detail?.id !== id) detail = { id, order: null, events: [], error: null };
    render();
    try {
      const body = await getJson(`/api/public/orders/${encodeURIComponent(id)}`);
      if (mine !== request) return;
      const known = detail.events;
      const events = [...body.data.events];
      for (const e of known) if (!events.some((x) => x.id === e.id)) events.push(e);
      events.sort((a, b) => a.id - b.id);
      const seen = detail.order;
      const order = seen && isNewer(body.data.order, seen) ? seen : body.data.order;
      detail = { id, order, events, error: null };
    } catch (error) {
      if (mine !== request) return;
      detail = { id, order: null, events: [], error };
    }
    render();
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
      hash
        ? h(
            'span',
            { class: 'with-copy' },
            onChain(chainName, 'tx', hash, hash),
            copyButton(hash, `${label} tx hash`),
          )
        : h('span', { class: 'muted' }, pendingText),
    );
  }

  /** A deadline (unix seconds, chain time) as a local date, with the raw value a contract compares against. */
  function deadlineEl(seconds, chainName) {
    const iso = unixToIso(seconds);
    if (!iso) return h('span', { class: 'muted' }, 'unknown');
    return h(
      'span',
      {},
      timeEl(iso),
      ' ',
      h('span', { class: 'muted small' }, `(${chainName} time, unix ${seconds})`),
    );
  }

  /** Where the detail shows an address: the full value (explorer link when there is one), a copy button, its orders. */
  function addressDetail(chainName, address, role) {
    return [
      onChain(chainName, 'address', address),
      ' ',
      copyButton(address, `${role} ${address}`),
      ' ',
      filterLink(address),
    ];
  }

  function render() {
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
        notFound ? null : { label: 'Retry', run: () => load(detail.id, false) },
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
            h('dt', {}, 'Order id'),
            h(
              'dd',
              { class: 'with-copy' },
              h('code', { class: 'mono hash' }, order.id),
              copyButton(order.id, 'order id'),
            ),
            h('dt', {}, 'Blockchain order id'),
            h(
              'dd',
              { class: 'with-copy', 'data-field': 'blockchainOrderId' },
              h('code', { class: 'mono hash' }, order.blockchainOrderId),
              copyButton(order.blockchainOrderId, 'blockchain order id'),
            ),
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
            h('dt', {}, 'Implied spread'),
            h('dd', { 'data-field': 'spread' }, formatBps(spreadTenthsOfBps(registry.tokens, order))),
            h('dt', {}, 'Liquidity provider'),
            h(
              'dd',
              { 'data-field': 'filler' },
              order.filler ? addressDetail(order.outputChain, order.filler, 'liquidity provider') : 'unknown',
            ),
            h('dt', {}, 'Offerer'),
            h('dd', {}, addressDetail(order.inputChain, order.offerer, 'offerer')),
            h('dt', {}, 'Recipient'),
            h('dd', {}, addressDetail(order.outputChain, order.recipient, 'recipient')),
            h('dt', {}, 'Deposit deadline'),
            h('dd', { 'data-field': 'openDeadline' }, deadlineEl(order.openDeadline, order.inputChain)),
            h('dt', {}, 'Fill deadline'),
            h('dd', { 'data-field': 'fillDeadline' }, deadlineEl(order.fillDeadline, order.outputChain)),
            h('dt', {}, 'Created'),
            h('dd', {}, timeEl(order.createdAt)),
            order.completedAt
              ? [
                  h('dt', {}, 'Completed'),
                  h(
                    'dd',
                    { 'data-field': 'completedAt' },
                    timeEl(order.completedAt),
                    ` (took ${formatDuration(timeToComplete(order))})`,
                  ),
                ]
              : null,
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
                h(
                  'p',
                  { class: 'step-text' },
                  STEP_TEXT[step.order.status]?.(step.order) ?? step.order.status,
                ),
                tx
                  ? h('p', { class: 'step-tx' }, 'tx ', onChain(tx[0], 'tx', tx[1], shortHash(tx[1])))
                  : null,
              );
            }),
          ),
          terminal ? null : h('p', { class: 'muted' }, 'Updates appear here live.'),
        ),
      ),
    );
  }

  return {
    load,
    render,
    /** No order on screen (another view). */
    clear() {
      detail = null;
    },
    /** An order event from the stream: merged into the order on screen when it is that order. */
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
