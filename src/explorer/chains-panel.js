// @ts-check
// The chains panel: GET /api/public/chains, which also gives every view its token registry (elements.js).
import { getJson } from './api.js';
import { $, h, showStatus } from './dom.js';
import { onChain, registry, setChains } from './elements.js';
import { shortAddress } from './format.js';

/** @typedef {import('./types.js').ChainInfo} ChainInfo */

/**
 * Loads the chains into the registry and draws them; `onRetryLoaded` runs after a retry (the first load's
 * caller redraws the views itself).
 * @param {() => void} onRetryLoaded
 * @returns {Promise<void>}
 */
export async function loadChains(onRetryLoaded) {
  try {
    /** @type {import('../../sdk/src/types.ts').ChainList} */
    const body = await getJson('/api/public/chains');
    setChains(body.data.chains);
    showStatus($('chains-status'), 'info', null);
  } catch (error) {
    showStatus(
      $('chains-status'),
      'error',
      `Could not load chains; amounts are shown in base units. ${/** @type {Error} */ (error).message}`,
      { label: 'Retry', run: () => loadChains(onRetryLoaded).then(onRetryLoaded) },
    );
  }
  renderChains();
}

/** @param {ChainInfo} chain */
function tokensTable(chain) {
  return h(
    'table',
    { class: 'tokens' },
    h('caption', { class: 'visually-hidden' }, `Tokens on ${chain.name}`),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Token'),
        h('th', { scope: 'col' }, 'Decimals'),
        h('th', { scope: 'col' }, 'Address'),
      ),
    ),
    h(
      'tbody',
      {},
      chain.tokens.map((t) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, t.symbol),
          h('td', {}, String(t.decimals)),
          h('td', {}, onChain(chain.name, 'address', t.address, shortAddress(t.address))),
        ),
      ),
    ),
  );
}

function renderChains() {
  $('chains').replaceChildren(
    ...registry.chains.map((chain) =>
      h(
        'article',
        { class: 'chain', 'data-chain': chain.name },
        h('h3', {}, chain.name, ' ', h('span', { class: 'muted chain-id' }, `chain id ${chain.chainId}`)),
        h(
          'dl',
          { class: 'kv' },
          h('dt', {}, 'Escrow'),
          h('dd', {}, onChain(chain.name, 'address', chain.escrow, shortAddress(chain.escrow))),
          h('dt', {}, 'Fill'),
          h('dd', {}, onChain(chain.name, 'address', chain.fill, shortAddress(chain.fill))),
          h('dt', {}, 'Confirmations'),
          h('dd', {}, String(chain.confirmations)),
          chain.explorerUrl
            ? [
                h('dt', {}, 'Explorer'),
                h(
                  'dd',
                  {},
                  h('a', { href: chain.explorerUrl, target: '_blank', rel: 'noopener noreferrer' }, 'Open'),
                ),
              ]
            : null,
        ),
        tokensTable(chain),
      ),
    ),
  );
}
