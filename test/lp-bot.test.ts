import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, erc20Abi, type Hex, http, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot } from '../src/lp/lp-bot.ts';
import type { PassReport } from '../src/lp/lp-pass-report.ts';
import { type LpJournal, openLpJournal } from '../src/store/ledgers/lp-journal.ts';
import { recordingBotLog } from './support/bot-log.ts';
import {
  approveEscrow,
  approveSpender,
  balanceOf,
  increaseChainTime,
  refundAsOfferer,
} from './support/chain-actors.ts';
import { createQuoteRequest, WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { acceptAndSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const SPREAD = 25;

describe('reference LP bot against a running Ferry', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  const journals: LpJournal[] = [];
  let journalFile: string;
  /** A bot process: each one opens the LP's journal anew, as a restarted `ferry lp` does. */
  const newBot = (rpcUrls?: Record<string, string>, fillMarginSeconds?: number, proveBatch?: number) => {
    const rec = recordingBotLog();
    const journal = openLpJournal(journalFile);
    journals.push(journal);
    const bot = createLpBot({
      api: createFerryApi({ baseUrl: h.baseUrl, apiKey: lp.apiKey }),
      privateKey: ANVIL_KEYS[4],
      spreadBps: SPREAD,
      log: rec.log,
      rpcUrls,
      journal,
      ...(fillMarginSeconds === undefined ? {} : { fillMarginSeconds }),
      ...(proveBatch === undefined ? {} : { proveBatch }),
    });
    return { bot, lines: rec.lines, journal };
  };
  const createRequest = async (input: bigint) => {
    return createQuoteRequest(h, mm.apiKey, { inputAmount: input.toString() });
  };
  const quotesOf = async (quoteRequestId: string) => {
    const res = await h.http('GET', `/api/v1/quotes?quoteRequestId=${quoteRequestId}&status=active`, {
      apiKey: mm.apiKey,
    });
    expect(res.status).toBe(200);
    return res.body.data.quotes as any[];
  };

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'bot', lpWallet.address);
    journalFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-journal-')), 'journal.sqlite');
  });
  afterAll(async () => {
    for (const journal of journals) await journal.close();
    await h?.close();
  });

  it('quotes an open request at its spread, once, and a restarted bot takes the 409 in its stride', async () => {
    const { bot } = newBot();
    const qrId = await createRequest(2_000_000n);

    const first = await bot.runOnce();
    expect(first.errors).toEqual([]);
    expect(first.quoted).toEqual([
      { quoteRequestId: qrId, quoteId: expect.any(String), outputAmount: '1995000' },
    ]);
    const quotes = await quotesOf(qrId);
    expect(quotes).toHaveLength(1);
    expect(quotes[0]).toMatchObject({
      id: first.quoted[0]!.quoteId,
      liquidityProviderId: lp.id,
      outputAmount: '1995000',
      status: 'active',
    });
    expect(quotes[0].typedData.message.filler).toBe(lpWallet.address);

    const second = await bot.runOnce();
    expect(second).toEqual({
      quoted: [],
      filled: [],
      proved: [],
      errors: [],
      retryAfterMs: null,
      nextPassAt: null,
    });

    // A fresh bot (no memory) is refused with 409 CONFLICT, records it and carries on.
    const restarted = newBot();
    const third = await restarted.bot.runOnce();
    expect(third.quoted).toEqual([]);
    expect(third.errors).toEqual([]);
    expect(restarted.lines.find((l) => l.obj.quoteRequestId === qrId)?.msg).toMatch(/^not quoting: CONFLICT/);
    expect((await quotesOf(qrId)).map((q) => q.id)).toEqual([first.quoted[0]!.quoteId]);
  });

  it('with --prove-batch 1, fills its accepted order exactly once, proving it in the fill, and the order completes', async () => {
    const input = 3_000_000n;
    const output = 2_992_500n;
    const escrow = h.registry.chain(h.chainA)!.contracts.escrow;
    // Batches of one: the fill proves itself (fillAndProve), as before batching (test/lp-batch-proofs.test.ts).
    const running = newBot(undefined, undefined, 1);
    const { bot } = running;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const before = {
      offerer: await balanceOf(h, h.chainA, h.usdcA, h.offerer.address),
      recipient: await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address),
      lpA: await balanceOf(h, h.chainA, h.usdcA, lpWallet.address),
      lpB: await balanceOf(h, h.chainB, h.usdcB, lpWallet.address),
      escrow: await balanceOf(h, h.chainA, h.usdcA, escrow),
    };

    const qrId = await createRequest(input);
    const quoted = await bot.runOnce();
    const mine = quoted.quoted.find((q) => q.quoteRequestId === qrId);
    expect(mine?.outputAmount).toBe(output.toString());
    const envelope = await h.http('GET', `/api/v1/quotes/${mine!.quoteId}`, { apiKey: mm.apiKey });
    expect(envelope.status).toBe(200);
    const q = envelope.body.data;
    const { orderHash } = await acceptAndSwap(h, mm.apiKey, q);

    await waitForStatus(h, mm.apiKey, q.orderId, 'deposited');
    // Hold the worker so the order stays `deposited` while the bots look at it again.
    await h.app.worker!.stop();
    try {
      const filled = await fillsOver(running, orderHash);
      expect(filled.errors).toEqual([]);
      expect(filled.fill).toEqual({
        orderId: q.orderId,
        orderHash,
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      const fillTx = filled.fill.txHash;

      // Same bot: it remembers its fill. Restarted bot: its journal holds the fill, mined.
      expect((await bot.runOnce()).filled).toEqual([]);
      const restarted = newBot(undefined, undefined, 1);
      const again = await restarted.bot.runOnce();
      expect(again.filled).toEqual([]);
      expect(again.errors).toEqual([]);
      // Its fill is watched until the escrow settles the order (through LayerZero it may have already).
      expect(restarted.lines.find((l) => l.obj.orderHash === orderHash)?.msg).toMatch(
        /^fill confirmed; (waiting for settlement|the escrow holds the order as settled)$/,
      );

      const chainB = h.registry.chain(h.chainB)!;
      const client = createPublicClient({ transport: http(chainB.rpcUrl) });
      const events = await client.getContractEvents({
        address: chainB.contracts.fill,
        abi: loadArtifact('FerryFill').abi,
        eventName: 'Filled',
        args: { orderHash },
        fromBlock: 0n,
      });
      expect(events.map((e) => e.transactionHash)).toEqual([fillTx]);
      // The devnets settle through LayerZero: the bot's fill transaction also sent the proof of the fill.
      const receipt = await client.getTransactionReceipt({ hash: fillTx });
      const proofs = parseEventLogs({
        abi: loadArtifact('FerryApp').abi,
        eventName: 'ProofSent',
        logs: receipt.logs,
      });
      expect(proofs.map((p) => (p.args as { orderHashes: readonly Hex[] }).orderHashes)).toEqual([
        [orderHash],
      ]);

      h.app.worker!.start();
      const completed = await waitForStatus(h, mm.apiKey, q.orderId, 'completed');
      expect(completed.details.dstChainTxHash).toBe(fillTx);
      expect(completed.details.settlementTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      h.app.worker!.start();
    }

    expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(before.offerer - input);
    expect(await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address)).toBe(before.recipient + output);
    const lpNet =
      (await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)) -
      before.lpA +
      ((await balanceOf(h, h.chainB, h.usdcB, lpWallet.address)) - before.lpB);
    expect(lpNet).toBe(input - output);
    expect(await balanceOf(h, h.chainA, h.usdcA, escrow)).toBe(before.escrow);

    // Completed orders are no longer the bot's business.
    const after = await bot.runOnce();
    expect(after.filled).toEqual([]);
    expect(after.errors).toEqual([]);
  });

  it('an RPC failure costs one request one pass: reported, not recorded, retried next pass', async () => {
    const broken = newBot({ [h.chainB]: 'http://127.0.0.1:1' });
    const qrId = await createRequest(1_500_000n);

    for (let pass = 0; pass < 2; pass++) {
      const report = await broken.bot.runOnce();
      expect(report.quoted).toEqual([]);
      expect(report.errors.map((e) => e.subject)).toContain(qrId);
    }
    expect(await quotesOf(qrId)).toEqual([]);

    // A bot with a working RPC quotes it.
    const { bot } = newBot();
    const report = await bot.runOnce();
    expect(report.quoted.map((q) => q.quoteRequestId)).toContain(qrId);
    expect((await quotesOf(qrId)).map((q) => q.outputAmount)).toEqual(['1496250']);
  });

  describe('checks its setup before the first pass (ferry lp exits with the sentence)', () => {
    const botWith = (
      apiKey: string,
      privateKey: `0x${string}` = ANVIL_KEYS[4],
      rpcUrls?: Record<string, string>,
    ) =>
      createLpBot({
        api: createFerryApi({ baseUrl: h.baseUrl, apiKey }),
        privateKey,
        spreadBps: SPREAD,
        log: recordingBotLog().log,
        rpcUrls,
        journal: newBot().journal,
      });

    it('passes with a liquidity provider key, its fill address key and answering RPCs', async () => {
      expect(await botWith(lp.apiKey).checkSetup()).toBeNull();
    });

    it('refuses an unknown API key', async () => {
      expect(await botWith('fry_not-a-real-key-at-all').checkSetup()).toMatch(
        /^the API key is not valid at http:\/\/127\.0\.0\.1:\d+ \(UNAUTHORIZED: /,
      );
    });

    it("refuses a money mover's API key", async () => {
      expect(await botWith(mm.apiKey).checkSetup()).toBe(
        `the API key belongs to moneyMover account ${mm.id}, not to a liquidity provider`,
      );
    });

    it("refuses a private key that is not the account's fill address", async () => {
      const other = privateKeyToAccount(ANVIL_KEYS[3]);
      expect(await botWith(lp.apiKey, ANVIL_KEYS[3]).checkSetup()).toBe(
        `the private key's address ${other.address} is not the fill address of account ${lp.id} (${lpWallet.address})`,
      );
    });

    it('refuses a chain whose RPC does not answer, naming the chain', async () => {
      const problem = await botWith(lp.apiKey, ANVIL_KEYS[4], {
        [h.chainB]: 'http://127.0.0.1:1',
      }).checkSetup();
      expect(problem).toMatch(
        new RegExp(
          `^the RPC of chain ${h.chainB} does not answer \\(.+\\); check --rpc-url ${h.chainB}=URL$`,
        ),
      );
      expect(problem).not.toContain('127.0.0.1:1');
    });
  });

  /** A request quoted by `bot`, accepted, signed and deposited by the worker; the worker is then held. */
  async function depositedOrder(bot: ReturnType<typeof newBot>['bot'], input: bigint) {
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const qrId = await createRequest(input);
    const mine = (await bot.runOnce()).quoted.find((q) => q.quoteRequestId === qrId);
    expect(mine).toBeDefined();
    const q = (await h.http('GET', `/api/v1/quotes/${mine!.quoteId}`, { apiKey: mm.apiKey })).body.data;
    const swap = await acceptAndSwap(h, mm.apiKey, q);
    await waitForStatus(h, mm.apiKey, q.orderId, 'deposited');
    await h.app.worker!.stop();
    return {
      orderId: swap.orderId,
      orderHash: swap.orderHash,
      typedData: swap.typedData,
      fillDeadline: Number(swap.typedData.message.fillDeadline),
    };
  }

  /**
   * Passes of the bot until it reports the order filled. A transaction not mined within one pass's receipt wait
   * (the approval, the fill) is `pending` and taken up by the next pass, so a busy machine may need more than one.
   */
  async function fillsOver(running: ReturnType<typeof newBot>, orderHash: Hex, passes = 6) {
    const errors: PassReport['errors'] = [];
    for (let i = 0; i < passes; i++) {
      const report = await running.bot.runOnce();
      errors.push(...report.errors);
      const fill = report.filled.find((f) => f.orderHash === orderHash);
      if (fill) return { fill, errors };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const said = running.lines.filter((l) => !l.obj.orderHash || l.obj.orderHash === orderHash);
    const text = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}` : x));
    return expect.fail(`not filled in ${passes} passes; errors ${text(errors)}; log ${text(said)}`);
  }

  it('does not fill within --fill-margin-seconds of fillDeadline; with the default margin it does', async () => {
    // A margin longer than the whole fill window: the order is always inside it.
    const margin =
      h.config.quoteValiditySeconds + h.config.openWindowSeconds + h.config.fillWindowSeconds + 60;
    const careful = newBot(undefined, margin);
    try {
      const order = await depositedOrder(careful.bot, 1_000_000n);
      const report = await careful.bot.runOnce();
      expect(report.filled).toEqual([]);
      expect(report.errors).toEqual([]);
      expect(careful.lines.find((l) => l.obj.orderHash === order.orderHash)?.msg).toBe(
        `not filling: within ${margin} s of the fill deadline (the order will be refunded)`,
      );
      // The same order, a bot with the default 60 s margin: far from the deadline, it fills.
      const fresh = newBot();
      await fillsOver(fresh, order.orderHash);
    } finally {
      h.app.worker!.start();
    }
  });

  it('approves the fill contract for what it has promised on the token, never more', async () => {
    const chainB = h.registry.chain(h.chainB)!;
    const client = createPublicClient({ transport: http(chainB.rpcUrl) });
    // No allowance left from earlier fills: this fill needs an approval.
    await approveSpender(h, h.chainB, h.usdcB, lpWallet, chainB.contracts.fill, 0n);
    const fromBlock = await client.getBlockNumber();
    const started = newBot();
    try {
      const order = await depositedOrder(started.bot, 1_000_000n);
      const promised = await started.journal.reserved(h.chainB, h.usdcB, Date.now());
      await fillsOver(started, order.orderHash);
      const approvals = await client.getContractEvents({
        address: h.usdcB,
        abi: erc20Abi,
        eventName: 'Approval',
        args: { owner: lpWallet.address, spender: chainB.contracts.fill },
        fromBlock,
      });
      // The zeroing above, then the bot's one approval: its open quotes and this order, nothing beyond.
      expect(approvals.map((a) => a.args.value)).toEqual([0n, promised]);
    } finally {
      h.app.worker!.start();
    }
  });

  // Last: it moves the input chain's clock far ahead, for good.
  it('checks the escrow just before filling: an order refunded on chain is not filled', async () => {
    const { bot, lines } = newBot();
    try {
      const order = await depositedOrder(bot, 1_000_000n);
      const recipientBefore = await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address);
      // The input chain passes the deadline (and any refund grace) while the output chain does not: the offerer
      // takes its input back, and Ferry's API still says `deposited` (its worker is held).
      const chainA = createPublicClient({ transport: http(h.registry.chain(h.chainA)!.rpcUrl) });
      const nowA = Number((await chainA.getBlock({ blockTag: 'latest' })).timestamp);
      await increaseChainTime(h, h.chainA, order.fillDeadline - nowA + 2 * 86_400);
      await refundAsOfferer(h, order);
      const listed = await h.http('GET', `/api/v1/orders/${order.orderId}`, { apiKey: lp.apiKey });
      expect(listed.body.data.status).toBe('deposited');

      const report = await bot.runOnce();
      expect(report.filled).toEqual([]);
      expect(report.errors).toEqual([]);
      expect(
        lines.find((l) => l.obj.orderHash === order.orderHash && l.msg.startsWith('not filling'))?.msg,
      ).toBe('not filling: the escrow holds the order as refunded, not active');
      expect(await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address)).toBe(recipientBefore);
    } finally {
      h.app.worker!.start();
    }
  });
});
