import fs from 'node:fs';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveEscrow, catchUpClock, fillSwap, setChainTime } from './support/chain-actors.ts';
import {
  ARTIFACTS,
  EXPLORER_URL,
  type ExplorerSession,
  expectSwapTimeline,
  focusedId,
  HAS_CHROMIUM,
  lpWallet,
  openPage,
  pageWidth,
  row,
  rowIds,
  type SettledSwap,
  startExplorerSession,
  swapVia,
} from './support/explorer-browser.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

describe.skipIf(!HAS_CHROMIUM)('explorer at GET / in a real browser', () => {
  let { h, browser, context, page, mm, lp, consoleErrors } = {} as ExplorerSession; // set by beforeAll
  /** The swap settled in the detail test, for the search and stats tests. */
  let settled: SettledSwap;

  const swapTo = (recipient: `0x${string}`, input: bigint, output: bigint) =>
    swapVia({ h, mm, lp }, recipient, input, output);
  const newPage = (viewport?: { width: number; height: number }) => openPage(context, viewport);

  beforeAll(async () => {
    ({ h, browser, context, page, mm, lp, consoleErrors } = await startExplorerSession());
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('loads with the empty states, the chains and their tokens, and a live stream', async () => {
    await page.goto('/');
    await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
    await expect.poll(() => page.locator('#orders-status').textContent()).toContain('No orders yet');
    const demo = await page.locator('#orders-status #demo-command').textContent(); // how to make an order here
    expect(demo).toBe(`npx ferry demo --api ${new URL(h.baseUrl).origin}`);
    expect(await page.locator('#orders-table').isHidden()).toBe(true);
    expect(await page.locator('#feed-empty').isVisible()).toBe(true);
    expect(await page.locator('#quotes').textContent()).toBe('No quotes yet.');

    const chainA = page.locator(`.chain[data-chain="${h.chainA}"]`);
    await chainA.waitFor();
    expect(await page.locator('.chain').count()).toBe(2);
    expect(await chainA.locator('table.tokens tbody th').allTextContents()).toEqual(
      h.registry.chain(h.chainA)!.tokens.map((t) => t.symbol),
    );
    const escrow = h.registry.chain(h.chainA)!.contracts.escrow;
    expect(await chainA.locator(`a[href="${EXPLORER_URL}/address/${escrow}"]`).textContent()).toBe(
      `${escrow.slice(0, 6)}…${escrow.slice(-4)}`,
    );
    // Chain B has no explorer: its addresses are text, not links.
    expect(await page.locator(`.chain[data-chain="${h.chainB}"] a.hash`).count()).toBe(0);
  });

  it('shows a new swap live within 2 s, with formatted amounts, and its status change without a reload', async () => {
    await page.goto('/');
    await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));

    // No allowance for the escrow: once the input chain passes openDeadline the worker fails this order, a live
    // status change.
    const { orderId, openDeadline } = await executeSwap(
      h,
      { mm, lp },
      { input: 2_500_000n, output: 2_450_000n },
    );
    await row(page, orderId).waitFor({ timeout: 2000 });
    const cells = row(page, orderId).locator('td');
    expect(await cells.nth(1).locator('.amount').textContent()).toBe('2.5 USDC');
    expect(await cells.nth(1).locator('.chain-name').textContent()).toBe(h.chainA);
    expect(await cells.nth(2).locator('.amount').textContent()).toBe('2.45 USDC');
    expect(await cells.nth(2).locator('.chain-name').textContent()).toBe(h.chainB);
    const offerer = h.offerer.address;
    expect(await cells.nth(3).locator('.addr-cell').first().textContent()).toBe(
      `${offerer.slice(0, 6)}…${offerer.slice(-4)}`,
    );
    expect(
      await page.locator(`#feed li[data-type="order.created"] a[href="#/orders/${orderId}"]`).count(),
    ).toBe(1);
    expect(await page.locator('#feed').getAttribute('aria-live')).toBe('polite');
    expect(await page.locator('#orders-count').textContent()).toBe('1 order');

    await setChainTime(h, h.chainA, openDeadline + 1n);
    await waitForStatus(h, mm.apiKey, orderId, 'failed');
    await catchUpClock(h);
    await page.locator(`#orders-body tr[data-order-id="${orderId}"][data-status="failed"]`).waitFor();
    await page.locator(`#feed li[data-type="order.updated"] a[href="#/orders/${orderId}"]`).waitFor();
    // The recent quotes took the quote live too.
    expect(await page.locator('#quotes li[data-quote-id]').count()).toBe(1);
    expect(navigations).toEqual([]);
  });

  it('follows a settled swap in its detail view: timeline, tx hashes, explorer links', async () => {
    const input = 3_000_000n;
    const output = 2_990_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    await row(page, swap.orderId).waitFor({ timeout: 2000 });

    // Open it from the table with the keyboard.
    await row(page, swap.orderId).locator('th a').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/#/orders/${swap.orderId}`);
    await expect.poll(() => page.locator('#detail-title code').textContent()).toBe(swap.orderId);
    expect(await page.locator('#home').isHidden()).toBe(true);
    await expect.poll(() => focusedId(page)).toBe('detail-title');

    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    // Filled without a proof: the worker proves it after proveAfterSeconds, so the page shows the fill as a step of
    // its own (a fill proven in its own transaction may be settled before Ferry sees it: deposited → completed).
    const fillTx = await fillSwap(h, lpWallet, swap, output, { prove: false });
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    // The page was never reloaded: the timeline grew from the stream.
    await expectSwapTimeline(page);
    expect(await page.locator('#detail-title .badge').textContent()).toBe('completed');

    const { srcChainTxHash, settlementTxHash, dstChainTxHash } = completed.details;
    expect(dstChainTxHash).toBe(fillTx);
    settled = { ...swap, txs: { srcChainTxHash, dstChainTxHash, settlementTxHash } };
    const txs = page.locator('.txs li');
    // Deposit, fill, settlement, and the settlement message that proved the fill.
    expect(await txs.count()).toBe(4);
    const message = txs.nth(3);
    expect(await message.getAttribute('data-settlement')).toBe('layerzero');
    expect(await message.locator('code.message-id').textContent()).toBe(
      completed.details.settlement.messageId,
    );
    // Chain A has an explorer: the deposit and the settlement are links; chain B's fill is plain text.
    expect(await txs.nth(0).locator('a.hash').getAttribute('href')).toBe(
      `${EXPLORER_URL}/tx/${srcChainTxHash}`,
    );
    expect(await txs.nth(0).locator('a.hash').textContent()).toBe(srcChainTxHash);
    expect(await txs.nth(1).locator('a').count()).toBe(0);
    expect(await txs.nth(1).locator('code.hash').textContent()).toBe(fillTx);
    expect(await txs.nth(2).locator('a.hash').getAttribute('href')).toBe(
      `${EXPLORER_URL}/tx/${settlementTxHash}`,
    );
    expect(await txs.nth(2).locator('a.hash').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await page.locator('.kv dd .amount').first().textContent()).toBe('3 USDC');

    // The same timeline on a fresh load, from GET /api/public/orders/{id}.
    const api = await h.http('GET', `/api/public/orders/${swap.orderId}`);
    expect(api.status).toBe(200);
    expect(api.body.data.order).toMatchObject({
      id: swap.orderId,
      status: 'completed',
      dstChainTxHash: fillTx,
    });
    expect(api.body.data.events[0].type).toBe('order.created');
    await page.reload();
    await expectSwapTimeline(page, api.body.data.events);
    await page.screenshot({ path: path.join(ARTIFACTS, 'explorer-detail-desktop.png'), fullPage: true });

    // Back to the list with the back link; the heading of the list takes the focus.
    await page.locator('a.back').click();
    await page.locator('#orders-body tr').first().waitFor();
    expect(await page.locator('#detail').isHidden()).toBe(true);
    expect(await row(page, swap.orderId).getAttribute('data-status')).toBe('completed');
    // A whole settlement (deposit, fill, settle) behind a browser: on a loaded 2-core machine it took over 30 s once.
  }, 90_000);

  it('searches by address (validated) and pages through the results', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const seeded: string[] = [];
    for (let i = 1; i <= 5; i += 1)
      seeded.push(await swapTo(recipient, BigInt(i) * 1_000_000n, BigInt(i) * 990_000n));
    const newestFirst = [...seeded].reverse();

    await page.goto('/');
    await page.locator('#orders-body tr').first().waitFor();
    expect(await page.locator('#orders-count').textContent()).toBe('7 orders');

    // An invalid address: an error tied to the field, and no request for orders.
    const orderRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/public/orders?')) orderRequests.push(request.url());
    });
    await page.locator('#q').fill('0x1234');
    await page.locator('#q').press('Enter');
    expect(await page.locator('#q-error').textContent()).toBe(
      'A 0x value must be an address (40 hex digits) or an order id or tx hash (64 hex digits).',
    );
    expect(await page.locator('#q').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#q').getAttribute('aria-describedby')).toBe('q-error');
    expect(await focusedId(page)).toBe('q');
    await page.locator('#q').fill('no spaces please');
    await page.locator('#q').press('Enter');
    expect(await page.locator('#q-error').textContent()).toBe(
      'Enter an order id, a blockchain order id, a tx hash or an address.',
    );
    expect(orderRequests).toEqual([]);

    // A valid one, in lower case: only that recipient's orders.
    await page.locator('#q').fill(recipient.toLowerCase());
    await page.locator('#filter button[type="submit"]').click();
    const lower = recipient.toLowerCase();
    await expect
      .poll(() => page.locator('#orders-count').textContent())
      .toBe(`5 orders for ${lower.slice(0, 6)}…${lower.slice(-4)}`);
    expect(await page.locator('#q-error').isHidden()).toBe(true);
    expect(await rowIds(page)).toEqual(newestFirst);
    expect(orderRequests.at(-1)).toContain(`q=${recipient.toLowerCase()}`);

    // Two per page through the URL (the older `address` form of a link still works): 3 pages, newest first.
    await page.goto(`/#/?address=${recipient}&pageSize=2`);
    await expect.poll(() => rowIds(page)).toEqual(newestFirst.slice(0, 2));
    expect(await page.locator('#page-info').textContent()).toBe('Page 1 of 3');
    expect(await page.locator('#prev-page').isDisabled()).toBe(true);
    await page.locator('#next-page').click();
    await expect.poll(() => rowIds(page)).toEqual(newestFirst.slice(2, 4));
    expect(await page.locator('#page-info').textContent()).toBe('Page 2 of 3');
    await page.locator('#next-page').click();
    await expect.poll(() => rowIds(page)).toEqual(newestFirst.slice(4));
    expect(await page.locator('#next-page').isDisabled()).toBe(true);
    await page.locator('#prev-page').click();
    await expect.poll(() => page.locator('#page-info').textContent()).toBe('Page 2 of 3');

    // The page-size control goes back to page 1.
    await page.locator('#page-size').selectOption('10');
    await expect.poll(() => page.url()).toContain(`#/?q=${recipient}&pageSize=10`);
    await expect.poll(() => rowIds(page)).toEqual(newestFirst);

    // An address with no orders, then Clear.
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    await page.goto(`/#/?q=${stranger}`);
    await expect.poll(() => page.locator('#orders-status').textContent()).toBe(`No orders for ${stranger}.`);
    expect(await page.locator('#orders-table').isHidden()).toBe(true);
    await page.locator('#clear-filter').click();
    await expect.poll(() => page.locator('#orders-count').textContent()).toBe('7 orders');

    // An invalid search in the URL is refused the same way.
    await page.goto('/#/?q=0x12');
    await expect
      .poll(() => page.locator('#orders-status').textContent())
      .toContain('not something the explorer can search for');
    expect(await page.locator('#q').inputValue()).toBe('0x12');
  });

  it('searches by order id, blockchain order id, each tx hash and the LP address', async () => {
    const searchFor = async (q: string) => {
      await page.locator('#q').fill(q);
      await page.locator('#q').press('Enter');
      await expect.poll(() => page.url()).toContain(`q=${encodeURIComponent(q)}`);
      // Every label shortens the query to end with its last characters: waiting for them (not just for
      // "matching"/"for", which the previous search's label also holds) keeps rows of that search from being read.
      await expect
        .poll(async () => ((await page.locator('#orders-count').textContent()) ?? '').toLowerCase())
        .toMatch(new RegExp(`(matching|for) .*${q.slice(-4).toLowerCase()}$`));
      return rowIds(page);
    };
    await page.goto('/');
    await page.locator('#orders-body tr').first().waitFor();
    expect(await searchFor(settled.orderId)).toEqual([settled.orderId]);
    expect(await page.locator('#orders-count').textContent()).toBe(
      `1 order matching ord_…${settled.orderId.slice(-6)}`,
    );
    // Hashes in upper case too: the API compares them case-insensitively.
    for (const q of [settled.orderHash.toUpperCase().replace('0X', '0x'), ...Object.values(settled.txs)]) {
      expect(await searchFor(q), q).toEqual([settled.orderId]);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'explorer-search-desktop.png') });
    // The LP's fill address: every order it quoted (the settled one among them), with the LP column showing it.
    const byLp = await searchFor(lpWallet.address);
    expect(byLp).toContain(settled.orderId);
    expect(await page.locator('#orders-count').textContent()).toMatch(/^\d+ orders for 0x/);
    const lpCell = row(page, settled.orderId).locator('td[data-label="LP"]');
    expect(await lpCell.locator('a').getAttribute('title')).toBe(lpWallet.address);
    // Row extras: time to completion under the status, the spread under the output (3 → 2.99 USDC: 33.3 bps).
    expect(await row(page, settled.orderId).locator('td[data-label="Status"] .note').textContent()).toMatch(
      /^took (<1 s|\d+ s|\d+ min( \d+ s)?)$/,
    );
    expect(await row(page, settled.orderId).locator('.spread').textContent()).toBe('spread 33.3 bps');
    // A well-formed search that matches nothing.
    const unknown = `0x${'ab'.repeat(32)}`;
    await page.locator('#q').fill(unknown);
    await page.locator('#q').press('Enter');
    await expect.poll(() => page.locator('#orders-status').textContent()).toBe(`No orders for ${unknown}.`);
  });

  it('the order page shows the LP, the spread, the deadlines, the time to completion, with copy buttons', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`/#/orders/${settled.orderId}`);
    await page.bringToFront();
    await page.locator('.timeline li[data-status="completed"]').waitFor();
    const field = (name: string) => page.locator(`.kv dd[data-field="${name}"]`);
    expect(await field('blockchainOrderId').textContent()).toBe(settled.orderHash);
    expect(await field('filler').locator('.hash').textContent()).toBe(lpWallet.address);
    expect(await field('spread').textContent()).toBe('33.3 bps');
    expect(await field('openDeadline').textContent()).toContain(`unix ${settled.openDeadline}`);
    expect(await field('fillDeadline').textContent()).toContain(`unix ${settled.fillDeadline}`);
    expect(await field('openDeadline').locator('time').getAttribute('datetime')).toBe(
      new Date(Number(settled.openDeadline) * 1000).toISOString(),
    );
    expect(await field('completedAt').textContent()).toMatch(/\(took .+\)$/);
    // Copy buttons: named for what they copy; a click puts the full value on the clipboard.
    const copy = field('filler').locator('button.copy');
    expect(await copy.getAttribute('aria-label')).toBe(`Copy liquidity provider ${lpWallet.address}`);
    await copy.click();
    await expect.poll(() => copy.getAttribute('data-copied')).toBe('true');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(lpWallet.address);
    await page.locator('.txs li').nth(1).locator('button.copy').click();
    await expect
      .poll(() => page.evaluate<string>('navigator.clipboard.readText()'))
      .toBe(settled.txs.dstChainTxHash);
    expect(await page.locator('#detail button.copy').count()).toBeGreaterThanOrEqual(8);
  });

  it('draws the stats from the swaps made here: volume per pair and token, fill times, outcomes', async () => {
    h.clock.advance(6); // past the stats' minimum age on the server
    const api = (await h.http('GET', '/api/public/stats')).body.data;
    const completed = api.outcomes.find((o: { status: string }) => o.status === 'completed').orders;
    expect(completed).toBeGreaterThanOrEqual(1);

    await page.goto('/#/stats');
    const volume = page.locator(`figure[data-series="${h.chainA} → ${h.chainB} USDC"]`);
    await volume.waitFor();
    expect(await page.locator('.nav a[aria-current="page"]').textContent()).toBe('Stats');
    // Accessible: each chart is an image named by its title and described by its desc.
    const svg = volume.locator('svg.chart');
    expect(await svg.getAttribute('role')).toBe('img');
    expect(await svg.locator('title').first().textContent()).toBe(
      `Daily volume, USDC from ${h.chainA} → ${h.chainB}`,
    );
    const today = api.volume.at(-1).day as string;
    const bar = svg.locator(`g.chart-bar[data-label="${today.slice(5)}"]`);
    const volumeText = `${Number(BigInt(api.volume.at(-1).inputAmount)) / 1e6} USDC`;
    expect(await bar.getAttribute('data-value')).toContain(volumeText);
    expect(Number(await bar.locator('rect').getAttribute('height'))).toBeGreaterThan(0);
    // 30 days, one slot each; the days without volume have empty bars.
    expect(await svg.locator('g.chart-bar').count()).toBe(30);
    // The numbers as a table too.
    await volume.locator('summary').click();
    expect(await volume.locator('table.data tbody tr').count()).toBe(api.volume.length);

    const fill = page.locator('figure[data-chart="fill-times"] g.chart-bar');
    expect(await fill.count()).toBe(7);
    const fillCounts = await fill.evaluateAll((bars) => bars.map((b) => b.getAttribute('data-value')));
    expect(fillCounts).toEqual(
      api.fillTimes.map((b: { orders: number }) => `${b.orders} ${b.orders === 1 ? 'order' : 'orders'}`),
    );
    const outcomes = page.locator('figure[data-chart="outcomes"] li.bar-row');
    expect(
      await outcomes.evaluateAll((rows) =>
        rows.map((r) => [r.getAttribute('data-label'), r.getAttribute('data-value')]),
      ),
    ).toEqual(api.outcomes.map((o: { status: string; orders: number }) => [o.status, String(o.orders)]));
    await page.screenshot({ path: path.join(ARTIFACTS, 'explorer-stats-desktop.png'), fullPage: true });

    const mobile = await newPage({ width: 390, height: 844 });
    await mobile.goto('/#/stats');
    await mobile.locator('figure[data-chart="outcomes"]').waitFor();
    expect(await pageWidth(mobile)).toBeLessThanOrEqual(390);
    await mobile.screenshot({ path: path.join(ARTIFACTS, 'explorer-stats-mobile.png'), fullPage: true });
    await mobile.close();
  });

  it('saves desktop and mobile screenshots; the page logged no console errors', async () => {
    await page.goto('/');
    await page.locator('#orders-body tr').first().waitFor();
    await page.locator('#quotes li[data-quote-id]').first().waitFor();
    await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
    // Some live activity on screen for the picture.
    const live = await swapTo(h.otherWallet.address, 12_345_678n, 12_300_000n);
    await page.locator(`#feed li[data-type="order.created"]:has(a[href="#/orders/${live}"])`).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'explorer-desktop.png') });

    const mobile = await newPage({ width: 390, height: 844 });
    mobile.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await mobile.goto('/');
    await mobile.locator('#orders-body tr').first().waitFor();
    // On a phone the page does not scroll sideways.
    expect(await pageWidth(mobile)).toBeLessThanOrEqual(390);
    await mobile.screenshot({ path: path.join(ARTIFACTS, 'explorer-mobile.png'), fullPage: true });
    await mobile.screenshot({ path: path.join(ARTIFACTS, 'explorer-mobile-viewport.png') });
    const first = await mobile.locator('#orders-body tr').first().getAttribute('data-order-id');
    await mobile.goto(`/#/orders/${first}`);
    await mobile.locator('.timeline li').first().waitFor();
    expect(await pageWidth(mobile)).toBeLessThanOrEqual(390);
    await mobile.screenshot({ path: path.join(ARTIFACTS, 'explorer-detail-mobile.png'), fullPage: true });
    await mobile.close();

    for (const name of ['desktop', 'mobile', 'detail-desktop', 'detail-mobile']) {
      expect(fs.statSync(path.join(ARTIFACTS, `explorer-${name}.png`)).size).toBeGreaterThan(10_000);
    }
    expect(consoleErrors).toEqual([]);
  });
});
