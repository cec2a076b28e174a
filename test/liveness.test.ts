import path from 'node:path';
import { createPublicClient, createWalletClient, type Hex, http, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS, DEVNET_DEPLOYER_KEY, DEVNET_RELAYER_KEY } from '../src/devnet/devnet.ts';
import { usdcAbi } from '../src/devnet/usdc-devnet.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot, type LpBot } from '../src/lp/lp-bot.ts';
import type { BotLog } from '../src/lp/lp-bot-log.ts';
import type { LpJournal } from '../src/store/ledgers/lp-journal.ts';
import { type AnvilKnobs, anvilKnobs } from './support/anvil-knobs.ts';
import {
  approveEscrow,
  approveSpender,
  depositAs,
  increaseChainTime,
  provenIn,
} from './support/chain-actors.ts';
import { jamEscrowCredit } from './support/escrow-outage.ts';
import { exitOf, spawnFerryLp, stopWithin } from './support/ferry-lp-process.ts';
import { createQuoteRequest, WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { sleep, until } from './support/polling.ts';
import { executeSwap, swapWithRunningLp, waitForStatus } from './support/swap-steps.ts';

const lpKey = ANVIL_KEYS[4];
const lpWallet = privateKeyToAccount(lpKey);
const relayer = privateKeyToAccount(DEVNET_RELAYER_KEY);
const SPREAD = 25;

/**
 * Liveness under real-chain faults, as an operator runs Ferry: blocks every 2 s on both chains, a registry with
 * `confirmations: 3`, and the reference LP bot as the liquidity provider, sending through its own transaction client
 * and journal. Each case ends with the swap completed (or, for an order the bot did not quote, never filled). All run
 * through the attester (Ferry's worker sends every settlement transaction); those where the bot sends under fault also
 * through LayerZero, its fillAndProve carrying the fee through every replacement (the worker's sends through
 * LayerZero under the same faults: settlement-real-chains.test.ts).
 */
describe.each([{ messenger: 'attester' as const }, { messenger: 'layerzero' as const }])(
  'liveness on 2-second blocks with confirmations 3, the reference bot as the LP, through the $messenger',
  ({ messenger }) => {
    const onAttester = (name: string, fn: () => Promise<void>, timeout: number) => {
      if (messenger === 'attester') it(name, fn, timeout);
    };
    let h: Harness;
    let mm: { id: string; apiKey: string };
    let lp: { id: string; apiKey: string };
    let chainA: AnvilKnobs;
    let chainB: AnvilKnobs;
    let bot: LpBot | null = null;
    let journal: LpJournal;
    const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
    const log: BotLog = Object.fromEntries(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => [
        level,
        (obj: object, msg: string) => lines.push({ level, msg, obj: obj as Record<string, unknown> }),
      ]),
    ) as unknown as BotLog;

    function startBot() {
      bot = createLpBot({
        api: createFerryApi({ baseUrl: h.baseUrl, apiKey: lp.apiKey }),
        privateKey: lpKey,
        spreadBps: SPREAD,
        log,
        journal,
        replaceAfterSeconds: 4,
        // One proof per fill, in the fill transaction: these cases hold the fill itself to the faults, and assert
        // the bot proved it (test/lp-batch-proofs.test.ts covers batched proofs).
        proveBatch: 1,
      });
      bot.start(500);
    }
    async function stopBot() {
      await bot?.stop();
      bot = null;
    }

    beforeAll(async () => {
      h = await startHarness(
        { worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
        { chains: { confirmations: 3, replaceAfterSeconds: 4 }, messenger },
      );
      mm = await h.createAccount('moneyMover');
      lp = await h.createAccount('liquidityProvider', 'bot', lpWallet.address);
      chainA = anvilKnobs(h.registry.chain(h.chainA)!.rpcUrl);
      chainB = anvilKnobs(h.registry.chain(h.chainB)!.rpcUrl);
      await chainA.blockTime(2);
      await chainB.blockTime(2);
      journal = h.lpJournal('bot');
      startBot();
    }, 120_000);
    afterAll(async () => {
      await stopBot();
      await h?.close();
    });

    /** The bot's quote on a new request, accepted and signed by the offerer: the order waits for its deposit. */
    const swapWithBot = (input: bigint) => swapWithRunningLp(h, mm, lp, input);

    /** Ferry's first chain action of `kind` for the order, once written down. */
    const actionOf = (orderId: string, kind: string) =>
      h.app.database.db
        .selectFrom('chain_actions')
        .selectAll()
        .where('order_id', '=', orderId)
        .where('kind', '=', kind)
        .where('seq', '=', 0)
        .executeTakeFirst();

    /** Through LayerZero the bot's own fill transaction proves the fill (ProofSent names it): Ferry proves nothing. */
    const expectProvenByBot = async (swap: { orderId: string; orderHash: Hex }, fillTx: Hex) => {
      if (messenger !== 'layerzero') return;
      expect(await provenIn(h, h.chainB, fillTx)).toContain(swap.orderHash);
      expect(await actionOf(swap.orderId, 'prove')).toBeUndefined();
    };

    const statusesOf = async (orderId: string) => {
      const res = await h.http('GET', `/api/public/orders/${orderId}`);
      return (res.body.data.events as any[]).map((e) => e.data.status);
    };

    it('mempools wiped every 700 ms for 15 s during the bot’s fill: the swap completes, and the bot quotes the next request within seconds', async () => {
      const swap = await swapWithBot(2_000_000n);
      await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
      const stops = [chainA.wipeMempool(700), chainB.wipeMempool(700)];
      try {
        await sleep(15_000);
      } finally {
        await Promise.all(stops.map((stop) => stop()));
      }
      await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
      const fill = await journal.latestAction(swap.orderHash, 'fill');
      expect(fill?.status).toBe('confirmed');
      await expectProvenByBot(swap, fill!.txHash);

      // The bot is not stuck behind anything: a new request is quoted within seconds (10 s at most here).
      const next = await createQuoteRequest(h, mm.apiKey, { inputAmount: '1000000' });
      await until(
        'the next quote',
        async () =>
          (await h.http('GET', `/api/v1/quotes?quoteRequestId=${next}&status=active`, { apiKey: mm.apiKey }))
            .body.data?.quotes?.length,
        10_000,
      );
    }, 180_000);

    it('a base-fee spike during the bot’s fill: the fill is replaced and mined during the spike', async () => {
      // The bot approves the fill contract only for what it has promised, so this fill would first wait for an
      // approval of its own: an allowance the operator set keeps this case about the fill's replacement.
      const fillContract = h.registry.chain(h.chainB)!.contracts.fill;
      await approveSpender(h, h.chainB, h.usdcB, lpWallet, fillContract, 1_500_000n);
      // Blocks stop on the output chain, so the bot's fill waits in the mempool at the fees of the moment.
      await chainB.blockTime(0);
      const swap = await swapWithBot(1_500_000n);
      try {
        await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
        await until('the bot to send its fill', async () => (await chainB.poolSize()) > 0);
        const first = await journal.latestAction(swap.orderHash, 'fill');
        expect(first?.status).toBe('recorded');
        const release = chainB.holdBaseFee(parseGwei('500'));
        try {
          await chainB.nextBaseFee(parseGwei('500'));
          await chainB.mine();
          await chainB.blockTime(2);
          const mined = await until('the fill to be mined', async () => {
            const action = await journal.latestAction(swap.orderHash, 'fill');
            return action?.status === 'confirmed' ? action : null;
          });
          // Mined during the spike, in a block whose base fee is the spike's: the spike was not waited out.
          const receipt = await chainB.client.getTransactionReceipt({ hash: mined.txHash });
          const block = await chainB.client.getBlock({ blockNumber: receipt.blockNumber });
          expect(block.baseFeePerGas).toBeGreaterThanOrEqual(parseGwei('500'));
          const attempts = await journal.ledger.attempts(mined.id);
          expect(attempts.length).toBeGreaterThanOrEqual(2);
          expect(attempts.at(-1)!.maxFeePerGas).toBeGreaterThan(parseGwei('500'));
          expect(mined.txHash).toBe(attempts.find((a) => a.status === 'confirmed')?.txHash);
        } finally {
          await release();
          await chainB.nextBaseFee(parseGwei('1'));
        }
        await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
        await expectProvenByBot(swap, (await journal.latestAction(swap.orderHash, 'fill'))!.txHash);
      } finally {
        await chainB.blockTime(2);
      }
    }, 180_000);

    onAttester(
      'an order quoted with the LP’s API key at a premium the bot would not quote: the bot never fills it',
      async () => {
        await stopBot();
        try {
          // Someone holding the LP's key: a request of their own, quoted in the LP's name at 21.8 for 20.
          const input = 20_000_000n;
          await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
          const swap = await executeSwap(h, { mm, lp }, { input, output: 21_800_000n });
          await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
          startBot();
          await until('the bot to look at the order', async () =>
            lines.find((l) => l.obj.orderHash === swap.orderHash && l.msg.startsWith('not filling')),
          );
          await sleep(6_000);
          const order = (await h.http('GET', `/api/v1/orders/${swap.orderId}`, { apiKey: mm.apiKey })).body
            .data;
          expect(order.status).toBe('deposited');
          expect(await journal.latestAction(swap.orderHash, 'fill')).toBeNull();
          expect(
            lines.find((l) => l.obj.orderHash === swap.orderHash && l.msg.startsWith('not filling'))?.msg,
          ).toBe('not filling: this bot did not make the quote of this order (not in its journal)');
        } finally {
          if (!bot) startBot();
        }
      },
      120_000,
    );

    it('kill -9 of `ferry lp` after it recorded a fill and before broadcast: on restart it broadcasts that fill, never a second one', async () => {
      await stopBot();
      const journalFile = path.join(h.dataDir, 'lp-journal-child.sqlite');
      const run = (faults: string) =>
        spawnFerryLp({
          apiUrl: h.baseUrl,
          apiKey: lp.apiKey,
          privateKey: lpKey,
          spreadBps: SPREAD,
          journalFile,
          faults,
          // The proof in the fill transaction, as for the in-process bot above.
          args: ['--prove-batch', '1'],
        });
      let child = run('after-record:fill');
      try {
        const swap = await swapWithBot(1_000_000n);
        expect(await exitOf(child)).toBe('SIGKILL');
        const { openLpJournal } = await import('../src/store/ledgers/lp-journal.ts');
        const childJournal = openLpJournal(journalFile);
        try {
          const recorded = await childJournal.latestAction(swap.orderHash, 'fill');
          expect(recorded?.status).toBe('recorded');
          const client = createPublicClient({ transport: http(h.registry.chain(h.chainB)!.rpcUrl) });
          await expect(client.getTransaction({ hash: recorded!.txHash })).rejects.toThrow();

          child = run('');
          await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
          const fills = await client.getContractEvents({
            address: h.registry.chain(h.chainB)!.contracts.fill,
            abi: loadArtifact('FerryFill').abi,
            eventName: 'Filled',
            args: { orderHash: swap.orderHash },
            fromBlock: 0n,
          });
          expect(fills.map((f) => f.transactionHash)).toEqual([recorded!.txHash]);
          const order = (await h.http('GET', `/api/v1/orders/${swap.orderId}`, { apiKey: mm.apiKey })).body
            .data;
          expect(order.details.dstChainTxHash).toBe(recorded!.txHash);
          await expectProvenByBot(swap, recorded!.txHash);
        } finally {
          await childJournal.close();
        }
      } finally {
        // SIGTERM stops the bot within a few seconds, whatever it waits on.
        await stopWithin(child, 6_000);
        startBot();
      }
    }, 180_000);

    onAttester(
      'the offerer deposits its own order a block before Ferry: never failed, it completes',
      async () => {
        const worker = h.app.worker!;
        await worker.stop();
        let swap: Awaited<ReturnType<typeof swapWithBot>>;
        try {
          swap = await swapWithBot(1_000_000n);
          await depositAs(h, h.offerer, swap.typedData, swap.signature);
        } finally {
          worker.start();
        }
        await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
        const order = (await h.http('GET', `/api/v1/orders/${swap.orderId}`, { apiKey: mm.apiKey })).body
          .data;
        expect(order.failureReason ?? null).toBeNull();
        expect(await statusesOf(swap.orderId)).not.toContain('failed');
      },
      120_000,
    );

    onAttester(
      'a settle that reverts once (token paused, filler credit full) is sent again and completes',
      async () => {
        // The devnets' USDC is Circle's: its pauser (the devnet deployer) pauses and unpauses it.
        const pauser = privateKeyToAccount(DEVNET_DEPLOYER_KEY);
        const chain = h.registry.chain(h.chainA)!;
        const wallet = createWalletClient({ account: pauser, transport: http(chain.rpcUrl) });
        const send = (functionName: 'pause' | 'unpause', tip: bigint) =>
          wallet.writeContract({
            chain: null,
            address: h.usdcA,
            abi: usdcAbi,
            functionName,
            maxPriorityFeePerGas: tip,
            maxFeePerGas: parseGwei('200'),
            gas: 100_000n,
          });
        const swap = await swapWithBot(1_000_000n);
        await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
        // The input chain stops mining, so Ferry's settle waits in the mempool; then a pause lands just before it.
        await chainA.blockTime(0);
        const unjam = await jamEscrowCredit(h, h.chainA, h.usdcA, lpWallet.address);
        try {
          const settle = await until('Ferry to send its settle', () => actionOf(swap.orderId, 'settle'));
          await send('pause', parseGwei('50'));
          await chainA.mine();
          const reverted = await chainA.client.getTransactionReceipt({ hash: settle.tx_hash as Hex });
          expect(reverted.status).toBe('reverted');
          await chainA.mine(3);
          const surfaced = await until('the revert to be surfaced on the order', async () => {
            await chainA.mine();
            const res = await h.http('GET', `/api/v1/orders/${swap.orderId}`, { apiKey: mm.apiKey });
            return /reverted and would revert again/.test(res.body.data.failureReason ?? '')
              ? res.body.data
              : null;
          });
          expect(surfaced.status).toBe('filled');
          expect(surfaced.failureReason).toContain('(Panic(17))'); // the credit's overflow
          const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
          expect(metrics).toMatch(
            new RegExp(`ferry_settlement_reverts_total\\{chain="${h.chainA}",kind="settle"\\} [1-9]`),
          );
          await send('unpause', parseGwei('50'));
          await chainA.blockTime(2);
          await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
        } finally {
          await unjam();
          await chainA.blockTime(2);
        }
        // The fill index can see the Settled log before the sender marks its own transaction confirmed (two loops,
        // both at confirmations depth): wait for the sender's bookkeeping, then check that nothing else was sent.
        const settlesOf = () =>
          h.app.database.db
            .selectFrom('chain_actions')
            .select(['seq', 'status', 'tx_hash'])
            .where('order_id', '=', swap.orderId)
            .where('kind', '=', 'settle')
            .orderBy('seq')
            .execute();
        const settles = await until('the retried settle to be confirmed', async () => {
          const rows = await settlesOf();
          return rows.some((row) => row.status === 'confirmed') ? rows : null;
        });
        expect(settles.map((s) => [s.seq, s.status])).toEqual([
          [0, 'reverted'],
          [1, 'confirmed'],
        ]);
        const order = (await h.http('GET', `/api/v1/orders/${swap.orderId}`, { apiKey: mm.apiKey })).body
          .data;
        expect(order.details.settlementTxHash).toBe(settles[1]!.tx_hash);
        // The note of the stalled retry is cleared once the order completes.
        expect(order.failureReason ?? null).toBeNull();
      },
      180_000,
    );

    // Last: it moves the input chain's clock past an openDeadline.
    onAttester(
      'relayer out of gas while an order passes openDeadline, then funded again: the next order deposits at once',
      async () => {
        const funded = 10n ** 20n;
        await chainA.setBalance(relayer.address, 0n);
        const stuck = await swapWithBot(1_000_000n);
        const client = createPublicClient({ transport: http(h.registry.chain(h.chainA)!.rpcUrl) });
        // The openDeadline passes on the input chain with nothing deposited: the order fails. (The deposit is
        // simulated from the relayer at the fees it would carry, so a relayer that cannot pay sends nothing.)
        const openDeadline = BigInt(stuck.typedData.message.openDeadline);
        const now = (await client.getBlock()).timestamp;
        await increaseChainTime(h, h.chainA, Number(openDeadline - now) + 10);
        const failed = await waitForStatus(h, mm.apiKey, stuck.orderId, 'failed', 60_000);
        expect(failed.failureReason).toMatch(/openDeadline/);

        await chainA.setBalance(relayer.address, funded);
        const next = await swapWithBot(1_000_000n);
        // Whatever the broke relayer wrote down for the failed order never holds the next one back.
        await waitForStatus(h, mm.apiKey, next.orderId, 'deposited', 60_000);
        const stuckDeposit = await actionOf(stuck.orderId, 'deposit');
        expect(stuckDeposit?.status ?? 'none').not.toBe('confirmed');
        await waitForStatus(h, mm.apiKey, next.orderId, 'completed', 90_000);
      },
      180_000,
    );
  },
);
