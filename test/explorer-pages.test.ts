import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  type ExplorerSession,
  HAS_CHROMIUM,
  openPage,
  row,
  startExplorerSession,
  swapVia,
} from './support/explorer-browser.ts';

/**
 * The explorer's assets, /docs, unknown ids and lost connections, in a browser on a server of its own. The
 * unreachable-API case runs after the dropped-stream one, whose swaps give it rows to wait for.
 */
describe.skipIf(!HAS_CHROMIUM)('explorer pages and failures in a real browser', () => {
  let { h, browser, context, page, mm, lp } = {} as ExplorerSession; // set by beforeAll

  const swapTo = (recipient: `0x${string}`, input: bigint, output: bigint) =>
    swapVia({ h, mm, lp }, recipient, input, output);
  const newPage = (viewport?: { width: number; height: number }) => openPage(context, viewport);

  beforeAll(async () => {
    ({ h, browser, context, page, mm, lp } = await startExplorerSession());
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
});
