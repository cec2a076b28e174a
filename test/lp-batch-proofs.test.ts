import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Address, type Hex, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { readEscrowCredits } from '../src/chains/settlement/escrow-credits.ts';
import { MAX_PROOFS_PER_MESSAGE } from '../src/chains/settlement/prove-options.ts';
import { ANVIL_KEYS, DEVNET_FEE_RECIPIENT } from '../src/devnet/devnet.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot, type LpBotOptions } from '../src/lp/lp-bot.ts';
import type { BotLog } from '../src/lp/lp-bot-log.ts';
import type { PassReport } from '../src/lp/lp-pass-report.ts';
import { type LpJournal, openLpJournal } from '../src/store/ledgers/lp-journal.ts';
import { approveEscrow, balanceOf, catchUpClock } from './support/chain-actors.ts';
import { createQuoteRequest, WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { devnetClient, packetOf, verifyByDvns } from './support/lz-messages.ts';
import { until } from './support/polling.ts';
import { acceptAndSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const appAbi = loadArtifact('FerryApp').abi;
const FEE_BPS = 10n;

/**
 * The reference bot's batched proofs on real chains (LayerZero V2's contracts, the devnet relay as DVNs and
 * executor, Ferry's worker): fills go out at once, their proofs in one prove(orders) per route.
 */
describe('LP bot: batched proofs', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  const journals: LpJournal[] = [];
  let journalFile: string;
  let usdtA: Address;

  /**
   * A bot process on the LP's journal (a restarted `ferry lp` opens it anew). `run` is one pass, its report kept in
   * `passes`: what the bot did shows across its passes, not in any one of them. It looks once for a transaction's
   * receipt right after broadcasting it and never waits (RECEIPT_WAIT_MS): on a loaded machine an approval, fill or
   * proof is often mined only after the pass that sent it ended, and a later pass goes on from there (an approval not
   * mined yet holds its fill back; a fill not yet at depth holds back its batch), as `ferry lp`'s loop does within a
   * second (nextPassAt). `passUntil` runs passes until `done`, by default until every transaction the bot sent is
   * mined at depth (no open action in its ledger).
   */
  const newBot = (options: Partial<LpBotOptions>) => {
    const lines: { level: string; msg: string; obj: any }[] = [];
    const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, msg, obj });
    const log: BotLog = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const journal = openLpJournal(journalFile);
    journals.push(journal);
    const bot = createLpBot({
      api: createFerryApi({ baseUrl: h.baseUrl, apiKey: lp.apiKey }),
      privateKey: ANVIL_KEYS[4],
      spreadBps: 25,
      log,
      journal,
      ...options,
    });
    const passes: PassReport[] = [];
    const run = async () => {
      const report = await bot.runOnce();
      passes.push(report);
      return report;
    };
    const allMined = async () => !(await journal.hasOpenActions());
    const passUntil = (done: () => Promise<boolean> = allMined) =>
      until(
        'the bot to get there over its passes',
        async () => {
          await run();
          return done();
        },
        30_000,
      );
    /** The orders it reported filled, in any pass (two filled in one pass come in the listing's order). */
    const filled = () => passes.flatMap((r) => r.filled.map((f) => f.orderHash)).sort();
    return { bot, lines, journal, passes, run, passUntil, filled };
  };
  type TestBot = ReturnType<typeof newBot>;
  const hashesOf = (swaps: { orderHash: Hex }[]) => swaps.map((s) => s.orderHash).sort();

  /** A swap of `input` of `token` the bot quotes (one pass, which also fills what is deposited), deposited. */
  const swapQuotedBy = async (bot: TestBot, input: bigint, token: Address) => {
    await approveEscrow(h, h.chainA, token, h.offerer, input);
    const qrId = await createQuoteRequest(h, mm.apiKey, { inputAmount: input.toString(), inputToken: token });
    const report = await bot.run();
    const mine = report.quoted.find((q) => q.quoteRequestId === qrId);
    expect(mine, JSON.stringify(report.errors)).toBeDefined();
    const q = (await h.http('GET', `/api/v1/quotes/${mine!.quoteId}`, { apiKey: mm.apiKey })).body.data;
    const { orderHash } = await acceptAndSwap(h, mm.apiKey, q);
    await waitForStatus(h, mm.apiKey, q.orderId, 'deposited');
    return { orderId: q.orderId as string, orderHash: orderHash as Hex, input, token };
  };

  /** Every ProofSent of chain B's FerryApp: the order hashes of each message. */
  const proofMessages = async () => {
    const app = h.registry.chain(h.chainB)!.contracts.fill;
    const logs = await devnetClient(h, h.chainB).getLogs({ address: app, fromBlock: 0n });
    return parseEventLogs({ abi: appAbi, eventName: 'ProofSent', logs }).map((l) => ({
      txHash: l.transactionHash,
      hashes: (l.args as { orderHashes: readonly Hex[] }).orderHashes.map((x) => x.toLowerCase()),
    }));
  };
  const messagesProving = async (orderHash: Hex) =>
    (await proofMessages()).filter((m) => m.hashes.includes(orderHash.toLowerCase()));
  /**
   * The worker's clock and both devnets' time brought level: the devnets' time moved up to the worker's clock (a test
   * before may have moved it past their fallbacks), then the worker's up to theirs (catchUpClock).
   */
  const alignClocks = async () => {
    for (const name of [h.chainA, h.chainB]) {
      const client = devnetClient(h, name);
      const behind = Math.floor(h.clock.now().getTime() / 1000) - Number((await client.getBlock()).timestamp);
      if (behind <= 0) continue;
      await client.request({ method: 'evm_increaseTime' as never, params: [behind + 1] as never });
      await client.request({ method: 'evm_mine' as never, params: [] as never });
    }
    await catchUpClock(h);
  };
  const owedOnA = async (token: Address, account: Address) =>
    (await readEscrowCredits(h.registry, account)).find((c) => c.chain === h.chainA && c.token === token)
      ?.owed ?? 0n;

  beforeAll(async () => {
    h = await startHarness(
      {
        worker: WORKER_ON,
        protocolFeeBps: Number(FEE_BPS),
        rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
      },
      // The worker's fallbacks wait on its clock, which only the tests move past them.
      { chains: { proveAfterSeconds: 60, executeAfterSeconds: 600 } },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'batching bot', lpWallet.address);
    journalFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-batch-')), 'journal.sqlite');
    usdtA = h.registry.chain(h.chainA)!.tokens.find((t) => t.symbol === 'USDT')!.address;
  });
  // Tests move the worker's clock past the chains' time to reach its fallbacks, and the chains do not follow: a fill
  // in a later test would be past proveAfter the moment it is mined, and the worker would prove it alone at once.
  // Each test starts with both clocks level, whatever ran before it.
  beforeEach(alignClocks);
  afterAll(async () => {
    for (const journal of journals) await journal.close();
    await h?.close();
  });

  it('proves three fills of two input tokens and three fees in one message, which pays the filler and fees exactly', async () => {
    const bot = newBot({ proveBatch: 3, proveAfterSeconds: 3600 });
    const before = {
      usdc: await balanceOf(h, h.chainA, h.usdcA, lpWallet.address),
      usdt: await balanceOf(h, h.chainA, usdtA, lpWallet.address),
      feeUsdc: await owedOnA(h.usdcA, DEVNET_FEE_RECIPIENT),
      feeUsdt: await owedOnA(usdtA, DEVNET_FEE_RECIPIENT),
    };
    const swaps = [
      await swapQuotedBy(bot, 3_000_000n, h.usdcA),
      await swapQuotedBy(bot, 5_432_100n, usdtA),
      await swapQuotedBy(bot, 7_654_321n, h.usdcA),
    ];
    await bot.passUntil();
    const reports = bot.passes;
    expect(reports.flatMap((r) => r.errors)).toEqual([]);
    // Each fill went out alone, without a proof: the recipient does not wait for the batch.
    expect(bot.filled()).toEqual(hashesOf(swaps));
    for (const fill of reports.flatMap((r) => r.filled)) {
      const receipt = await devnetClient(h, h.chainB).getTransactionReceipt({ hash: fill.txHash });
      expect(parseEventLogs({ abi: appAbi, eventName: 'ProofSent', logs: receipt.logs })).toEqual([]);
    }
    const proved = reports.flatMap((r) => r.proved);
    expect(proved).toHaveLength(1);
    expect(new Set(proved[0]!.orderHashes)).toEqual(new Set(swaps.map((s) => s.orderHash)));
    const messages = (await proofMessages()).filter((m) => m.txHash === proved[0]!.txHash);
    expect(messages).toHaveLength(1);
    expect(new Set(messages[0]!.hashes)).toEqual(new Set(swaps.map((s) => s.orderHash.toLowerCase())));

    for (const s of swaps) await waitForStatus(h, mm.apiKey, s.orderId, 'completed', 30_000);
    const fee = (input: bigint) => (input * FEE_BPS) / 10_000n;
    const paid = (token: Address) =>
      swaps.filter((s) => s.token === token).reduce((sum, s) => sum + s.input - fee(s.input), 0n);
    const fees = (token: Address) =>
      swaps.filter((s) => s.token === token).reduce((sum, s) => sum + fee(s.input), 0n);
    expect((await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)) - before.usdc).toBe(paid(h.usdcA));
    expect((await balanceOf(h, h.chainA, usdtA, lpWallet.address)) - before.usdt).toBe(paid(usdtA));
    expect((await owedOnA(h.usdcA, DEVNET_FEE_RECIPIENT)) - before.feeUsdc).toBe(fees(h.usdcA));
    expect((await owedOnA(usdtA, DEVNET_FEE_RECIPIENT)) - before.feeUsdt).toBe(fees(usdtA));
    // Nothing more to prove.
    expect((await bot.run()).proved).toEqual([]);
  });

  it('a restart between a fill and its batch still proves it, once; a batch sent before a crash is not sent again', async () => {
    const first = newBot({ proveBatch: 2, proveAfterSeconds: 3600 });
    const x = await swapQuotedBy(first, 2_000_000n, h.usdcA);
    await first.passUntil();
    expect(first.filled()).toEqual([x.orderHash]);
    expect(first.passes.flatMap((r) => r.proved)).toEqual([]);

    // Restarted; it crashes right after broadcasting the batch proof (before it learns the outcome).
    const crashing = newBot({
      proveBatch: 2,
      proveAfterSeconds: 3600,
      faults: {
        at(point) {
          if (point === 'after-send:prove') throw new Error('crash after sending the batch proof');
        },
      },
    });
    const y = await swapQuotedBy(crashing, 2_500_000n, h.usdcA);
    // Passes until the crash, and none after: the process is gone.
    const crashMessages = () => crashing.passes.flatMap((r) => r.errors.map((e) => e.message));
    await crashing.passUntil(async () => crashMessages().length > 0);
    expect(crashing.filled()).toEqual([y.orderHash]);
    expect(crashMessages()).toEqual(['crash after sending the batch proof']);

    const restarted = newBot({ proveBatch: 2, proveAfterSeconds: 0 });
    await restarted.passUntil();
    expect(restarted.passes.flatMap((r) => r.errors)).toEqual([]);
    expect(restarted.passes.flatMap((r) => r.proved)).toEqual([]);
    expect(restarted.lines.map((l) => l.msg)).toContain('batch proof mined');
    expect(restarted.lines.map((l) => l.msg)).not.toContain('batch proof sent');
    for (const s of [x, y]) await waitForStatus(h, mm.apiKey, s.orderId, 'completed', 30_000);
    const [mx, my] = [await messagesProving(x.orderHash), await messagesProving(y.orderHash)];
    expect(mx).toHaveLength(1);
    expect(my.map((m) => m.txHash)).toEqual(mx.map((m) => m.txHash));
    expect(await restarted.journal.proofs.unproven()).toEqual([]);
  });

  it('the worker commits and executes a batch message once, not once per order in it', async () => {
    await h.devnets.relay?.stop();
    try {
      const bot = newBot({ proveBatch: 2, proveAfterSeconds: 3600 });
      const swaps = [
        await swapQuotedBy(bot, 1_300_000n, h.usdcA),
        await swapQuotedBy(bot, 1_400_000n, h.usdcA),
      ];
      await bot.passUntil();
      const proved = bot.passes.flatMap((r) => r.proved);
      expect(proved).toHaveLength(1);
      // Only the DVNs' part: the executor is down, so the worker commits and executes after executeAfterSeconds.
      await verifyByDvns(h, await packetOf(h, proved[0]!.txHash));
      // The worker's proof index holds the bot's message for both orders before its clock jumps 700 s: a clock
      // ahead of its index would read "nobody proved" past proveAfterSeconds and prove again (a real clock does
      // not jump; on PostgreSQL the index was seen a pass behind).
      const hashes = swaps.map((s) => s.orderHash.toLowerCase());
      await until('the proof index to hold the batch message', async () => {
        const rows = await h.app.database.db
          .selectFrom('proof_sent')
          .select('order_hash')
          .where('order_hash', 'in', hashes)
          .execute();
        return new Set(rows.map((r) => r.order_hash)).size === hashes.length;
      });
      await catchUpClock(h);
      h.clock.advance(700);
      for (const s of swaps) await waitForStatus(h, mm.apiKey, s.orderId, 'completed', 30_000);
      const actions = await h.app.database.db
        .selectFrom('chain_actions')
        .select(['kind', 'status'])
        .where(
          'order_id',
          'in',
          swaps.map((s) => s.orderId),
        )
        .where('kind', 'in', ['commit', 'execute', 'prove'])
        .execute();
      expect(actions.filter((a) => a.kind === 'commit')).toEqual([{ kind: 'commit', status: 'confirmed' }]);
      expect(actions.filter((a) => a.kind === 'execute')).toEqual([{ kind: 'execute', status: 'confirmed' }]);
      expect(actions.filter((a) => a.kind === 'prove')).toEqual([]);
      // Each was sent for one order and linked to the other in the write that recorded it.
      const links = await h.app.database.db
        .selectFrom('chain_action_orders')
        .select(['kind', 'order_id'])
        .where(
          'order_id',
          'in',
          swaps.map((s) => s.orderId),
        )
        .where('kind', 'in', ['commit', 'execute'])
        .execute();
      expect(links.map((l) => l.kind).sort()).toEqual(['commit', 'execute']);
    } finally {
      h.devnets.startRelay();
    }
  });

  it("when the bot proves nothing, the worker's fallback proves every order of the route in one message and the bot does not prove them again", async () => {
    const bot = newBot({ proveBatch: MAX_PROOFS_PER_MESSAGE, proveAfterSeconds: 3600 });
    const swaps = [await swapQuotedBy(bot, 1_100_000n, h.usdcA), await swapQuotedBy(bot, 1_200_000n, usdtA)];
    await bot.passUntil();
    expect(bot.passes.flatMap((r) => r.errors)).toEqual([]);
    expect(bot.filled()).toEqual(hashesOf(swaps));
    expect(bot.passes.flatMap((r) => r.proved)).toEqual([]);
    // Past the output chain's proveAfterSeconds on the worker's clock: it proves the fills itself. Both in one pass by
    // construction: the worker has seen both fills (`filled`), and no pass under way reads the clock while it moves
    // (one could find the first order due and the second not yet), so the clock moves while the worker is held and
    // one pass then finds both due.
    for (const s of swaps) await waitForStatus(h, mm.apiKey, s.orderId, 'filled');
    await h.app.worker!.stop();
    try {
      await catchUpClock(h);
      h.clock.advance(120);
      await h.app.worker!.runOnce();
    } finally {
      h.app.worker!.start();
    }
    for (const s of swaps) await waitForStatus(h, mm.apiKey, s.orderId, 'completed', 30_000);

    // Restarted with no window: the batch is due at once, and the chains say there is nothing left to prove.
    const late = newBot({ proveBatch: MAX_PROOFS_PER_MESSAGE, proveAfterSeconds: 0 });
    await late.passUntil();
    expect(late.passes.flatMap((r) => r.errors)).toEqual([]);
    expect(late.passes.flatMap((r) => r.proved)).toEqual([]);
    expect(late.lines.map((l) => l.msg)).not.toContain('batch proof sent');
    expect(await late.journal.proofs.unproven()).toEqual([]);
    // One prove of the worker's for both (one route, two input tokens), linked to both orders.
    const messages = await Promise.all(swaps.map((s) => messagesProving(s.orderHash)));
    expect(messages.map((m) => m.length)).toEqual([1, 1]);
    expect(messages[1]![0]!.txHash).toBe(messages[0]![0]!.txHash);
    const tx = await devnetClient(h, h.chainB).getTransaction({ hash: messages[0]![0]!.txHash });
    expect(tx.from.toLowerCase()).not.toBe(lpWallet.address.toLowerCase());
    const ids = swaps.map((s) => s.orderId);
    const proves = await h.app.database.db
      .selectFrom('chain_actions')
      .select(['order_id', 'seq', 'status', 'tx_hash'])
      .where('kind', '=', 'prove')
      .where('order_id', 'in', ids)
      .execute();
    expect(proves).toEqual([
      { order_id: expect.any(String), seq: 0, status: 'confirmed', tx_hash: messages[0]![0]!.txHash },
    ]);
    const links = await h.app.database.db
      .selectFrom('chain_action_orders')
      .selectAll()
      .where('kind', '=', 'prove')
      .where('order_id', 'in', ids)
      .execute();
    expect(links).toEqual([
      {
        action_order_id: proves[0]!.order_id,
        kind: 'prove',
        seq: 0,
        order_id: ids.find((id) => id !== proves[0]!.order_id),
      },
    ]);
  });
});
