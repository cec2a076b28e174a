// @ts-check
// The order view's panels: the order in full (summary), its transactions and its timeline.
import { $, badge, copyButton, h, showStatus, timeEl } from './dom.js';
import { amountEl, filterLink, onChain, registry } from './elements.js';
import {
  formatBps,
  formatDuration,
  shortHash,
  spreadTenthsOfBps,
  timeToComplete,
  unixToIso,
} from './format.js';
import { isTerminalOrderStatus } from './lifecycle.js';
import { isOpenToAnyFiller } from './open-filler.js';

/** @typedef {import('./types.js').PublicOrder} PublicOrder */
/** @typedef {import('./types.js').OrderEvent} OrderEvent */

/**
 * The order on screen: its id, then the order and its events once loaded, or the error that stopped that.
 * @typedef {object} DetailState
 * @property {string} id
 * @property {PublicOrder | null} order
 * @property {OrderEvent[]} events
 * @property {(Error & { code?: string | null }) | null} error
 */

/** @type {Record<string, (o: PublicOrder) => string>} */
const STEP_TEXT = {
  created: (o) => `Signed order submitted: ${o.inputChain} → ${o.outputChain}`,
  deposited: (o) => `Input locked in escrow on ${o.inputChain}`,
  filled: (o) => `Output delivered to the recipient on ${o.outputChain}`,
  completed: (o) => `Escrow released to the liquidity provider on ${o.inputChain}`,
  failed: (o) => `Failed${o.failureReason ? `: ${o.failureReason}` : ''}`,
  refunded: (o) => `Input refunded to the offerer on ${o.inputChain}`,
};

/**
 * The tx a status change brought: the deposit, the fill, or the settlement / refund.
 * @param {PublicOrder} order
 * @returns {[string, string] | null}
 */
function stepTx(order) {
  if (order.status === 'deposited' && order.srcChainTxHash) return [order.inputChain, order.srcChainTxHash];
  if (order.status === 'filled' && order.dstChainTxHash) return [order.outputChain, order.dstChainTxHash];
  if ((order.status === 'completed' || order.status === 'refunded') && order.settlementTxHash) {
    return [order.inputChain, order.settlementTxHash];
  }
  return null;
}

/**
 * From the order's events; without any (an older log), from its timestamps.
 * @param {DetailState & { order: PublicOrder }} detail
 * @returns {{ key: string, at: string, order: PublicOrder }[]}
 */
function timelineSteps(detail) {
  if (detail.events.length > 0) {
    return detail.events.map((e) => ({ key: `e${e.id}`, at: e.occurredAt, order: e.data }));
  }
  const { order } = detail;
  /** @type {{ key: string, at: string, order: PublicOrder }[]} */
  const steps = [{ key: 'created', at: order.createdAt, order: { ...order, status: 'created' } }];
  if (order.status !== 'created') steps.push({ key: 'now', at: order.updatedAt, order });
  return steps;
}

/**
 * @param {string} label
 * @param {string} chainName
 * @param {string | null} hash
 * @param {string} pendingText
 */
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

/**
 * A deadline (unix seconds, chain time) as a local date, with the raw value a contract compares against.
 * @param {string | null} seconds
 * @param {string} chainName
 */
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

/**
 * Where the detail shows an address: the full value (explorer link when there is one), a copy button, its orders.
 * @param {string} chainName
 * @param {string} address
 * @param {string} role
 */
function addressDetail(chainName, address, role) {
  return [
    onChain(chainName, 'address', address),
    ' ',
    copyButton(address, `${role} ${address}`),
    ' ',
    filterLink(address),
  ];
}

/** @param {PublicOrder} order */
function summaryPanel(order) {
  const openToAll = isOpenToAnyFiller(order.filler);
  return h(
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
      h('dd', {}, amountEl(order.inputChain, order.inputToken, order.inputAmount), ` on ${order.inputChain}`),
      h('dt', {}, 'Receives'),
      h(
        'dd',
        {},
        amountEl(order.outputChain, order.outputToken, order.outputAmount),
        ` on ${order.outputChain}`,
      ),
      h('dt', {}, 'Protocol fee'),
      h(
        'dd',
        { 'data-field': 'protocolFee' },
        amountEl(order.inputChain, order.inputToken, order.protocolFee ?? '0'),
        ' (paid from the input at settlement)',
      ),
      h('dt', {}, 'Implied spread'),
      h('dd', { 'data-field': 'spread' }, formatBps(spreadTenthsOfBps(registry.tokens, order))),
      h('dt', {}, 'Opened'),
      h(
        'dd',
        { 'data-field': 'source' },
        order.source === 'onchain'
          ? "on chain by the offerer's wallet (the escrow's ERC-7683 open)"
          : "through Ferry's API (an accepted quote)",
      ),
      h('dt', {}, 'Liquidity provider'),
      h(
        'dd',
        { 'data-field': 'filler' },
        openToAll
          ? 'none named (open to any filler)'
          : order.filler
            ? addressDetail(order.outputChain, order.filler, 'liquidity provider')
            : 'unknown',
      ),
      h('dt', {}, 'Exclusive until'),
      h(
        'dd',
        { 'data-field': 'exclusivityDeadline' },
        openToAll
          ? 'no exclusivity: any filler from the start'
          : order.exclusivityDeadline
            ? [deadlineEl(order.exclusivityDeadline, order.outputChain), ' (then any filler)']
            : 'unknown',
      ),
      h('dt', {}, 'Filled by'),
      h(
        'dd',
        { 'data-field': 'filledBy' },
        order.filledBy ? addressDetail(order.outputChain, order.filledBy, 'filler') : 'not yet',
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
  );
}

/**
 * @param {PublicOrder} order
 * @param {boolean} terminal
 */
function transactionsPanel(order, terminal) {
  const refunded = order.status === 'refunded';
  return h(
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
      settlementRow(order),
    ),
  );
}

/** How the fill is proven to the escrow: a LayerZero message (its guid) or the attester's signature. */
const METHOD_TEXT = { layerzero: 'LayerZero message', attester: 'Attester signature' };

/**
 * The order's settlement message: method, id and where it stands (sent, verified, delivered).
 * @param {PublicOrder} order
 */
function settlementRow(order) {
  const method = order.settlementMethod;
  return h(
    'li',
    { class: 'tx', 'data-settlement': method ?? 'none' },
    h('span', { class: 'tx-label' }, 'Settlement message'),
    method && order.messageId
      ? h(
          'span',
          { class: 'with-copy' },
          h('span', {}, `${METHOD_TEXT[method]} `),
          h('code', { class: 'message-id' }, order.messageId),
          copyButton(order.messageId, 'settlement message id'),
          ' ',
          badge(order.settlementStatus ?? 'sent'),
        )
      : h('span', { class: 'muted' }, 'none yet'),
  );
}

/**
 * @param {DetailState & { order: PublicOrder }} detail
 * @param {boolean} terminal
 */
function timelinePanel(detail, terminal) {
  return h(
    'section',
    { class: 'panel timeline-panel', 'aria-labelledby': 'timeline-title' },
    h('h3', { id: 'timeline-title' }, 'Timeline'),
    h(
      'ol',
      { class: 'timeline', 'aria-live': 'polite' },
      timelineSteps(detail).map((step, i, steps) => {
        const previous = steps[i - 1]?.order;
        if (previous && previous.status === step.order.status) {
          // An update that keeps the status: a step only when it moved the proof of the fill along (sent,
          // verified, delivered); other updates (a note on the order, a retry) are not steps of the swap.
          return step.order.settlementStatus && step.order.settlementStatus !== previous.settlementStatus
            ? settlementStep(step)
            : null;
        }
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
  );
}

/**
 * A timeline step that moved the settlement message, not the order's status.
 * @param {{ key: string, at: string, order: PublicOrder }} step
 */
function settlementStep(step) {
  const { settlementStatus, messageId } = step.order;
  return h(
    'li',
    { class: 'step step-settlement', 'data-step': 'settlement', 'data-settlement': settlementStatus ?? '' },
    h('div', { class: 'step-head' }, badge(settlementStatus ?? 'sent'), ' ', timeEl(step.at)),
    h(
      'p',
      { class: 'step-text' },
      `Proof of the fill ${settlementStatus ?? 'sent'}`,
      messageId ? [' (message ', h('code', { class: 'mono' }, shortHash(messageId)), ')'] : null,
    ),
  );
}

/**
 * Draws the order view: the order, a loading notice, or the error (with `retry` unless the order does not exist).
 * @param {DetailState} detail
 * @param {() => void} retry
 */
export function drawDetail(detail, retry) {
  const body = $('detail-body');
  const title = $('detail-title');
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
      notFound ? null : { label: 'Retry', run: retry },
    );
    return;
  }
  const order = detail.order;
  if (!order) {
    showStatus(body, 'info', 'Loading order…');
    return;
  }
  title.append(' ', badge(order.status));
  const terminal = isTerminalOrderStatus(order.status);
  body.replaceChildren(
    h(
      'div',
      { class: 'detail-grid' },
      summaryPanel(order),
      transactionsPanel(order, terminal),
      timelinePanel({ ...detail, order }, terminal),
    ),
  );
}
