import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveEscrow, onchainOrderTerms, openOnChain } from './support/chain-actors.ts';
import {
  type ExplorerSession,
  HAS_CHROMIUM,
  startExplorerSession,
  swapVia,
} from './support/explorer-browser.ts';
import { until } from './support/polling.ts';

/** The explorer's order page says how an order was opened: a wallet on chain, or Ferry's API. */
describe.skipIf(!HAS_CHROMIUM)('explorer: an order opened on chain, in a real browser', () => {
  let { h, browser, page, consoleErrors, ...parties } = {} as ExplorerSession; // set by beforeAll

  beforeAll(async () => {
    ({ h, browser, page, consoleErrors, ...parties } = await startExplorerSession());
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const field = (name: string) => page.locator(`.kv dd[data-field="${name}"]`);

  it('shows the wallet opened it, open to any filler from the start', async () => {
    const order = await onchainOrderTerms(h, 3_000_000n, 2_990_000n);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, order.inputAmount);
    const txHash = await openOnChain(h, h.offerer, order);
    const id = await until('Ferry follows the order opened on chain', async () => {
      const [found] = (await h.http('GET', `/api/public/orders?q=${txHash}`)).body.data.orders;
      return found?.id as string | undefined;
    });
    await page.goto(`/#/orders/${id}`);
    await field('source').waitFor();
    expect(await field('source').textContent()).toBe(
      "on chain by the offerer's wallet (the escrow's ERC-7683 open)",
    );
    expect(await field('filler').textContent()).toBe('none named (open to any filler)');
    expect(await field('exclusivityDeadline').textContent()).toBe(
      'no exclusivity: any filler from the start',
    );
  });

  it('shows an API order was opened through an accepted quote; the pages logged no console errors', async () => {
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 1_000_000n);
    const orderId = await swapVia({ h, ...parties }, h.otherWallet.address, 1_000_000n, 995_000n);
    await page.goto(`/#/orders/${orderId}`);
    await field('source').waitFor();
    expect(await field('source').textContent()).toBe("through Ferry's API (an accepted quote)");
    expect(consoleErrors).toEqual([]);
  });
});
