import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/chains/devnet.ts';
import { approveEscrow, catchUpClock, fillSwap, setChainTime } from './support/chain-actors.ts';
import { findChromium } from './support/chromium.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const chromiumLookup = await findChromium();
const CHROMIUM = chromiumLookup.path;
const HAS_CHROMIUM = CHROMIUM !== undefined;
const ARTIFACTS = path.resolve('test-artifacts');
const EXPLORER_URL = 'https://explorer.chain-a.test';
const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

if (!HAS_CHROMIUM) console.warn(`explorer browser tests SKIPPED: ${chromiumLookup.missing}`);

describe.skipIf(!HAS_CHROMIUM)('explorer at GET / in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  const consoleErrors: string[] = [];
  /** The swap settled in the detail test, for the search and stats tests. */
  let settled: {
    orderId: string;
    orderHash: string;
    openDeadline: bigint;
    fillDeadline: bigint;
    txs: { srcChainTxHash: string; dstChainTxHash: string; settlementTxHash: string };
  };

  /** request → quote → accept → sign → swap, like executeSwap, with the recipient chosen by the test. */
  async function swapTo(recipient: `0x${string}`, input: bigint, output: bigint): Promise<string> {
    const created = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      body: {
        recipient,
        offerer: h.offerer.address,
        inputToken: h.usdcA,
        outputToken: h.usdcB,
        inputAmount: input.toString(),
        inputChain: h.chainA,
        outputChain: h.chainB,
      },
    });
    expect(created.status).toBe(201);
    const quote = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: created.body.data.quoteId, outputAmount: output.toString() },
    });
    expect(quote.status).toBe(201);
    const q = quote.body.data;
    expect((await h.http('POST', `/api/v1/quotes/${q.quoteId}/accept`, { apiKey: mm.apiKey })).status).toBe(
      200,
    );
    const signature = await h.offerer.signTypedData(q.typedData);
    const swap = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      body: { orderId: q.orderId, quoteId: q.quoteId, signature },
    });
    expect(swap.status).toBe(201);
    return q.orderId;
  }

  async function newPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
    const p = await context.newPage();
    await p.setViewportSize(viewport);
    return p;
  }

  // Expressions evaluated in the page (this project's TypeScript has no DOM library).
  const focusedId = (p: Page) => p.evaluate<string | undefined>('document.activeElement?.id');
  const pageWidth = (p: Page) => p.evaluate<number>('document.documentElement.scrollWidth');
  const row = (p: Page, orderId: string) => p.locator(`#orders-body tr[data-order-id="${orderId}"]`);
  const rowIds = (p: Page) =>
    p.locator('#orders-body tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order-id')));

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    // The devnet registry has no block explorer. Give chain A one (the registry object is the server's own), so
    // the page must link chain A's transactions and show chain B's as plain text.
    (h.registry.chain(h.chainA) as { explorerUrl: string | null }).explorerUrl = EXPLORER_URL;
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    context = await browser.newContext({ baseURL: h.baseUrl, reducedMotion: 'reduce' });
    page = await newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('serves the page and its assets from memory, outside the OpenAPI document, counted in the rate limit', async () => {
    const index = await fetch(`${h.baseUrl}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(index.headers.get('ratelimit-limit')).not.toBeNull();
    expect(await index.text()).toContain('<script type="module" src="/explorer/app.js"></script>');

    const script = await fetch(`${h.baseUrl}/explorer/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = script.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await fetch(`${h.baseUrl}/explorer/app.js`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect((await fetch(`${h.baseUrl}/explorer/explorer.css`)).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );

    const missing = await h.http('GET', '/explorer/secrets.json');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: 'no such explorer file',
      code: 'NOT_FOUND',
      details: [{ path: 'params.file', message: 'is not an explorer file' }],
    });
    expect((await h.http('GET', '/explorer/..%2Fhttp%2Fserver.ts')).status).toBe(404);

    const doc = await h.http('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths)).not.toContain('/');
    expect(Object.keys(doc.body.paths).some((p) => p.startsWith('/explorer'))).toBe(false);
    expect(doc.body.paths['/api/public/orders/{id}'].get.summary).toBe('One order (public)');
  });

  it('GET /api/public/orders/{id}: an unknown id is 404 ORDER_NOT_FOUND', async () => {
    const res = await h.http('GET', '/api/public/orders/ord_missing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'order ord_missing does not exist',
      code: 'ORDER_NOT_FOUND',
      details: [{ path: 'params.id', message: 'order ord_missing does not exist' }],
    });
    const bad = await h.http('GET', '/api/public/orders/ord%20bad');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('params.id');
  });

  it('loads with the empty states, the chains and their tokens, and a live stream', async () => {
    await page.goto('/');
    await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
    await expect.poll(() => page.locator('#orders-status').textContent()).toContain('No orders yet');
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
    const fillTx = await fillSwap(h, lpWallet, swap, output);
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    // The page was never reloaded: the timeline grew from the stream.
    await page.locator('.timeline li[data-status="completed"]').waitFor();
    expect(
      await page.locator('.timeline li').evaluateAll((items) => items.map((i) => i.dataset.status)),
    ).toEqual(['created', 'deposited', 'filled', 'completed']);
    expect(await page.locator('#detail-title .badge').textContent()).toBe('completed');

    const { srcChainTxHash, settlementTxHash, dstChainTxHash } = completed.details;
    expect(dstChainTxHash).toBe(fillTx);
    settled = { ...swap, txs: { srcChainTxHash, dstChainTxHash, settlementTxHash } };
    const txs = page.locator('.txs li');
    expect(await txs.count()).toBe(3);
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
    expect(
      api.body.data.events.map((e: { type: string; data: { status: string } }) => [e.type, e.data.status]),
    ).toEqual([
      ['order.created', 'created'],
      ['order.updated', 'deposited'],
      ['order.updated', 'filled'],
      ['order.updated', 'completed'],
    ]);
    await page.reload();
    await page.locator('.timeline li[data-status="completed"]').waitFor();
    expect(await page.locator('.timeline li').count()).toBe(4);
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

  it('the API reference at /docs is titled Ferry API and leads back to the explorer and the guides', async () => {
    const docs = await newPage();
    await docs.goto('/docs');
    await docs.locator('.swagger-ui .info .title').waitFor();
    expect(await docs.title()).toBe('Ferry API');
    const bar = docs.locator('header.ferry-bar');
    expect(await bar.locator('.ferry-brand').getAttribute('href')).toBe('/');
    expect(
      await bar.locator('nav a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
    ).toEqual(['/', '/#/stats', '/guides/', '/openapi.json']);
    // The stock Swagger top bar is hidden; the stats operation is listed under Public.
    expect(await docs.locator('.swagger-ui .topbar').isVisible()).toBe(false);
    await docs.locator('#operations-Public-getPublicStats').waitFor();
    await docs.screenshot({ path: path.join(ARTIFACTS, 'explorer-docs-desktop.png') });

    await bar.getByRole('link', { name: 'Guides' }).click();
    await docs.waitForURL('**/guides/');
    expect(await docs.title()).toBe('Guides · Ferry');
    const guide = docs.locator('a[href="/guides/api-conventions.md"]');
    expect(await guide.textContent()).toBe('API conventions');
    const text = await fetch(`${h.baseUrl}/guides/api-conventions.md`);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toContain('# API conventions');
    expect((await h.http('GET', '/guides/nope.md')).status).toBe(404);
    expect((await h.http('GET', '/guides/..%2Fpackage.json')).status).toBe(404);
    await docs.close();
  });

  it('an unknown order id has its own message', async () => {
    await page.goto('/#/orders/ord_does_not_exist');
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain('No order has this id');
    expect(await page.locator('#detail-body [role="alert"]').count()).toBe(1);
  });

  it('when the API is unreachable it says so, and recovers on Retry and reconnects the stream', async () => {
    const p = await newPage();
    await p.route('**/api/public/**', (route) => route.abort('connectionrefused'));
    await p.goto('/');
    await expect
      .poll(() => p.locator('#orders-status').textContent())
      .toContain('The Ferry API is unreachable');
    // EventSource keeps retrying by itself; after the second failure in a row the indicator says offline.
    await expect
      .poll(() => p.locator('#conn').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('offline');
    expect(await p.locator('#orders-status [role="alert"] button').textContent()).toBe('Retry');

    await p.unroute('**/api/public/**');
    await p.locator('#orders-status button').click();
    await p.locator('#orders-body tr').first().waitFor();
    await expect.poll(() => p.locator('#conn').getAttribute('data-state'), { timeout: 10_000 }).toBe('live');
    await p.close();
  });

  it('after a dropped stream it reconnects with Last-Event-ID and receives what it missed', async () => {
    const p = await newPage();
    await p.goto('/');
    await p.locator('#orders-count:not(:empty)').waitFor();
    await expect.poll(() => p.locator('#conn').getAttribute('data-state')).toBe('live');
    // One event seen on this stream, so it has an id to resume from.
    const seenId = await swapTo(h.otherWallet.address, 1_000_000n, 990_000n);
    await row(p, seenId).waitFor({ timeout: 2000 });
    const lastSeen = Number(await p.locator('#feed li').first().getAttribute('data-event-id'));

    // Hold the reconnect until an order has been created while the page was away.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held: string[] = [];
    await p.route('**/api/public/stream**', async (route) => {
      held.push(route.request().url());
      await gate;
      await route.continue();
    });
    h.app.server.server.closeAllConnections();
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(1);
    expect(await p.locator('#conn').getAttribute('data-state')).toBe('reconnecting');
    const missedId = await swapTo(h.otherWallet.address, 1_100_000n, 1_090_000n);
    expect(await row(p, missedId).count()).toBe(0);
    release();

    await row(p, missedId).waitFor({ timeout: 5000 });
    // The missed order was committed before the reconnect reached the server, and the page does not refetch the
    // list on reconnect: only the replay from Last-Event-ID can have brought it (the URL carries no id: it is the
    // header, which EventSource sets itself and the browser does not show to the route).
    expect(held).toEqual([`${h.baseUrl}/api/public/stream`]);
    await expect.poll(() => p.locator('#conn').getAttribute('data-state')).toBe('live');
    // The replay carried the missed order once, and the feed holds every event once, newest first.
    const created = p.locator(`#feed li[data-type="order.created"]:has(a[href="#/orders/${missedId}"])`);
    expect(await created.count()).toBe(1);
    expect(Number(await created.getAttribute('data-event-id'))).toBeGreaterThan(lastSeen);
    const ids = await p
      .locator('#feed li')
      .evaluateAll((items) => items.map((i) => Number(i.dataset.eventId)));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    await p.close();
  });
});
