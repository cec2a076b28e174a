import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import { findChromium } from './chromium.ts';
import { WORKER_ON } from './fixtures.ts';
import { type Harness, startHarness } from './harness.ts';
import { acceptAndSwap } from './swap-steps.ts';

/** A started server with its worker and a headless Chromium on the explorer, for the explorer's browser suites. */
const chromiumLookup = await findChromium();
export const CHROMIUM = chromiumLookup.path;
export const HAS_CHROMIUM = CHROMIUM !== undefined;
export const ARTIFACTS = path.resolve('test-artifacts');
export const EXPLORER_URL = 'https://explorer.chain-a.test';
export const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

if (chromiumLookup.path === undefined)
  console.warn(`explorer browser tests SKIPPED: ${chromiumLookup.missing}`);

export interface ExplorerSession {
  h: Harness;
  browser: Browser;
  context: BrowserContext;
  /** The page a suite shares; its console errors are collected in `consoleErrors`. */
  page: Page;
  mm: { id: string; apiKey: string };
  lp: { id: string; apiKey: string };
  consoleErrors: string[];
}

/** A settled swap, kept by one test for the ones after it. */
export interface SettledSwap {
  orderId: string;
  orderHash: string;
  openDeadline: bigint;
  fillDeadline: bigint;
  txs: { srcChainTxHash: string; dstChainTxHash: string; settlementTxHash: string };
}

export async function openPage(
  context: BrowserContext,
  viewport = { width: 1280, height: 800 },
): Promise<Page> {
  const p = await context.newPage();
  await p.setViewportSize(viewport);
  return p;
}

export async function startExplorerSession(): Promise<ExplorerSession> {
  const consoleErrors: string[] = [];
  const h = await startHarness({
    worker: WORKER_ON,
    rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
  });
  // The devnet registry has no block explorer. Give chain A one (the registry object is the server's own), so
  // the page must link chain A's transactions and show chain B's as plain text.
  (h.registry.chain(h.chainA) as { explorerUrl: string | null }).explorerUrl = EXPLORER_URL;
  const mm = await h.createAccount('moneyMover');
  const lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  const browser = await chromium.launch({
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
  const context = await browser.newContext({ baseURL: h.baseUrl, reducedMotion: 'reduce' });
  const page = await openPage(context);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return { h, browser, context, page, mm, lp, consoleErrors };
}

/** request → quote → accept → sign → swap, like executeSwap, with the recipient chosen by the test. */
export async function swapVia(
  { h, mm, lp }: Pick<ExplorerSession, 'h' | 'mm' | 'lp'>,
  recipient: `0x${string}`,
  input: bigint,
  output: bigint,
): Promise<string> {
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
  return (await acceptAndSwap(h, mm.apiKey, quote.body.data)).orderId;
}

// Expressions evaluated in the page (this project's TypeScript has no DOM library).
export const focusedId = (p: Page) => p.evaluate<string | undefined>('document.activeElement?.id');
export const pageWidth = (p: Page) => p.evaluate<number>('document.documentElement.scrollWidth');
export const row = (p: Page, orderId: string) => p.locator(`#orders-body tr[data-order-id="${orderId}"]`);
export const rowIds = (p: Page) =>
  p.locator('#orders-body tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order-id')));

type TimelineEvent = { type: string; data: { status: string; settlementStatus?: string | null } };

/**
 * A completed swap's timeline on the order page: each status once and in order, and between them only steps of the
 * fill's proof (sent, verified, delivered). With the order's events (GET /api/public/orders/{id}), also that the page
 * shows exactly the statuses they carry and one step per move of the proof.
 */
export async function expectSwapTimeline(page: Page, events?: TimelineEvent[]): Promise<void> {
  await page.locator('.timeline li[data-status="completed"]').waitFor();
  const statuses = await page
    .locator('.timeline li[data-status]')
    .evaluateAll((items) =>
      items.map((i) => (i as unknown as { dataset: Record<string, string> }).dataset.status),
    );
  expect(statuses).toEqual(['created', 'deposited', 'filled', 'completed']);
  const proofSteps = await page
    .locator('.timeline li[data-step="settlement"]')
    .evaluateAll((items) =>
      items.map((i) => (i as unknown as { dataset: Record<string, string> }).dataset.settlement),
    );
  for (const state of proofSteps) expect(['sent', 'verified', 'delivered']).toContain(state);
  if (!events) return;
  const changes = events.map((e) => e.data.status).filter((s, i, all) => s !== all[i - 1]);
  expect(changes).toEqual(statuses);
  const proofMoves = events.filter((e, i) => {
    const before = events[i - 1]?.data;
    const moved = e.data.settlementStatus ?? null;
    return before?.status === e.data.status && moved !== null && moved !== (before.settlementStatus ?? null);
  });
  expect(proofSteps).toHaveLength(proofMoves.length);
}
