import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFerryApi, type FerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot } from '../src/lp/lp-bot.ts';
import type { BotLog } from '../src/lp/lp-bot-log.ts';
import { type LpJournal, openLpJournal } from '../src/store/ledgers/lp-journal.ts';
import { transferToken } from './support/chain-actors.ts';
import { createQuote, createQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/** 100 USDC, in base units: what the bot's fill address holds on the output chain at first. */
const HELD = 100_000_000n;
const SPREAD = 25;

/**
 * The bot and Ferry count an LP's promises by one rule (domain/lp-coverage.ts); when Ferry still refuses a quote
 * for coverage (it counts a promise the bot does not know of: here a quote made by hand on the same key), the bot
 * does not take the 422 as final: it quotes the request again once its wallet's balance changed, and not before.
 * Real server, real anvil balances.
 */
describe('the LP bot and a quote Ferry refuses for coverage', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let journal: LpJournal;
  const key = generatePrivateKey();
  /** The quote requests the bot posted a quote for, in order. */
  const posted: string[] = [];
  const lines: { msg: string; obj: any }[] = [];
  const at = () => (obj: object, msg: string) => {
    lines.push({ msg, obj });
  };
  const log: BotLog = { debug: at(), info: at(), warn: at(), error: at() };

  beforeAll(async () => {
    h = await startHarness({ rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } });
    mm = await h.createAccount('moneyMover');
    const fillAddress = privateKeyToAccount(key).address;
    lp = await h.createAccount('liquidityProvider', 'bot', fillAddress);
    await transferToken(h, h.chainB, h.usdcB, h.otherWallet, fillAddress, HELD);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-cover-'));
    journal = openLpJournal(path.join(dir, 'journal.sqlite'));
  });
  afterAll(async () => {
    await journal?.close();
    await h?.close();
  });

  const newBot = () => {
    const api = createFerryApi({ baseUrl: h.baseUrl, apiKey: lp.apiKey });
    const counting: FerryApi = {
      ...api,
      createQuote(input) {
        posted.push(input.quoteRequestId);
        return api.createQuote(input);
      },
    };
    return createLpBot({ api: counting, privateKey: key, spreadBps: SPREAD, log, journal, stream: false });
  };

  it('a 422 for coverage is quoted again after the balance grows, and only then', async () => {
    const bot = newBot();
    // A quote made by hand on the bot's key: Ferry counts 85 of the 100, the bot's journal knows nothing of it.
    const byHand = await createQuoteRequest(h, mm.apiKey, { inputAmount: '85000000' });
    await createQuote(h, lp.apiKey, byHand, '85000000');
    const qrId = await createQuoteRequest(h, mm.apiKey, { inputAmount: '20000000' });

    const first = await bot.runOnce();
    expect(first.errors).toEqual([]);
    expect(first.quoted).toEqual([]);
    expect(posted.filter((id) => id === qrId)).toHaveLength(1);
    const refusal = lines.find((l) => l.obj.quoteRequestId === qrId && l.msg.startsWith('Ferry counts more'));
    expect(refusal?.obj).toMatchObject({ held: `${HELD}`, reserved: '0' });
    expect(refusal?.obj.err).toContain('85000000 of it is already promised');

    // Nothing changed: the bot does not ask again.
    const second = await bot.runOnce();
    expect(second.quoted).toEqual([]);
    expect(posted.filter((id) => id === qrId)).toHaveLength(1);

    // The balance grows: 130 now cover the 85 promised by hand and the bot's 19.95.
    await transferToken(h, h.chainB, h.usdcB, h.otherWallet, privateKeyToAccount(key).address, 30_000_000n);
    // No clock moves: Ferry's cached reading of 100 (it covered the quote alone) is read again before a refusal.
    const third = await bot.runOnce();
    expect(third.errors).toEqual([]);
    expect(third.quoted).toEqual([
      { quoteRequestId: qrId, quoteId: expect.any(String), outputAmount: '19950000' },
    ]);
    expect(posted.filter((id) => id === qrId)).toHaveLength(2);

    // The bot reserves its quote as long as Ferry may count it: through the swap's deposit window after endTime.
    const quoteId = third.quoted[0]!.quoteId;
    const res = await h.http('GET', `/api/v1/quotes/${quoteId}`, { apiKey: lp.apiKey });
    expect(res.status).toBe(200);
    const endTime = res.body.data.quote.endTime as number;
    expect((await journal.findQuote(quoteId))?.reservedUntil).toBe(
      (endTime + h.config.openWindowSeconds) * 1000,
    );
  });

  it('Ferry publishes the deposit window the bot reserves by', async () => {
    const res = await h.http('GET', '/api/public/chains');
    expect(res.status).toBe(200);
    expect(res.body.data.openWindowSeconds).toBe(h.config.openWindowSeconds);
  });
});
