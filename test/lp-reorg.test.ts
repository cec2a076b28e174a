import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { type AnvilKnobs, anvilKnobs } from './support/anvil-knobs.ts';
import { minedIn } from './support/chain-actors.ts';
import { spawnFerryLp, stopWithin } from './support/ferry-lp-process.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { sleep, until } from './support/polling.ts';
import { swapWithRunningLp, waitForStatus } from './support/swap-steps.ts';

const lpKey = ANVIL_KEYS[4];
const lpWallet = privateKeyToAccount(lpKey);
const SPREAD = 25;
const fillAbi = loadArtifact('FerryFill').abi;

/**
 * Operator-style: both chains apart from Ferry with 2-second blocks, a registry asking 3 confirmations, the real
 * `ferry lp` process as the liquidity provider, and a two-block reorg of the output chain right after its fill.
 */
describe('the reference bot across a reorg of the output chain', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let chainB: AnvilKnobs;
  let child: ChildProcess | null = null;
  const lines: { msg: string; orderHash?: string; txHash?: string }[] = [];

  beforeAll(async () => {
    h = await startHarness(
      { worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      { chains: { confirmations: 3, replaceAfterSeconds: 4 }, messenger: 'attester' },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'bot', lpWallet.address);
    chainB = anvilKnobs(h.registry.chain(h.chainB)!.rpcUrl);
    await anvilKnobs(h.registry.chain(h.chainA)!.rpcUrl).blockTime(2);
    await chainB.blockTime(2);
  }, 120_000);
  afterEach(async () => {
    if (child) await stopWithin(child, 6_000);
    child = null;
  });
  afterAll(async () => {
    await h?.close();
  });

  function startBot(name: string, args: string[] = []) {
    child = spawnFerryLp({
      apiUrl: h.baseUrl,
      apiKey: lp.apiKey,
      privateKey: lpKey,
      spreadBps: SPREAD,
      journalFile: path.join(h.dataDir, `lp-journal-${name}.sqlite`),
      args,
    });
    let rest = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString();
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        try {
          lines.push(JSON.parse(line));
        } catch {
          // not a log line
        }
      }
    });
  }

  /** The bot's quote on a new request, accepted and signed: the order waits for its deposit. */
  const swapWithBot = (input: bigint) => swapWithRunningLp(h, mm, lp, input);

  /** The canonical Filled events of the order on the output chain. */
  const fillsOf = (orderHash: Hex) =>
    chainB.client.getContractEvents({
      address: h.registry.chain(h.chainB)!.contracts.fill,
      abi: fillAbi,
      eventName: 'Filled',
      args: { orderHash },
      fromBlock: 0n,
    });

  /**
   * Once the bot's fill is in a block, blocks stop; the chain is brought to one block on top of the fill, the bot
   * gets `settle` ms to look at it, and the fill's block and the one after leave the chain. Blocks resume.
   */
  async function reorgAfterFill(orderHash: Hex, settle: () => Promise<unknown>): Promise<Hex> {
    const [fill] = await until('the bot to fill', async () => {
      const events = await fillsOf(orderHash);
      return events.length > 0 ? events : null;
    });
    await chainB.blockTime(0);
    const fillBlock = fill!.blockNumber;
    while ((await chainB.client.getBlockNumber({ cacheTime: 0 })) < fillBlock + 1n) await chainB.mine();
    expect(await chainB.client.getBlockNumber({ cacheTime: 0 })).toBe(fillBlock + 1n);
    await settle();
    await chainB.reorg(2);
    const txHash = fill!.transactionHash;
    expect(await minedIn(h, h.chainB, txHash)).toBeNull();
    expect(await fillsOf(orderHash)).toEqual([]);
    await chainB.blockTime(2);
    return txHash;
  }

  it('with its defaults it counts the fill at the registry’s depth, sends the same fill again, and the order completes', async () => {
    startBot('defaults');
    const swap = await swapWithBot(1_500_000n);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
    // Depth 2 for two seconds: a bot counting its fill final after one block has done so by now.
    let countedFinal = false;
    const removed = await reorgAfterFill(swap.orderHash, async () => {
      await sleep(2_000);
      countedFinal = lines.some((l) => l.orderHash === swap.orderHash && l.msg === 'filled');
    });

    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
    // At depth 2 of the registry's 3 the bot had not counted its fill final.
    expect(countedFinal).toBe(false);
    // The same signed bytes, broadcast again: the same transaction, now canonical.
    expect(completed.details.dstChainTxHash).toBe(removed);
    expect((await fillsOf(swap.orderHash)).map((f) => f.transactionHash)).toEqual([removed]);
  }, 180_000);

  it('with --confirmations 1 it counted the fill final; the reorg takes it off the chain and the bot sends it again', async () => {
    startBot('one-confirmation', ['--confirmations', '1']);
    const swap = await swapWithBot(1_200_000n);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', 60_000);
    const removed = await reorgAfterFill(swap.orderHash, () =>
      until('the bot to count its fill final', async () =>
        lines.find((l) => l.orderHash === swap.orderHash && l.msg === 'filled'),
      ),
    );

    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
    expect(
      lines.find(
        (l) =>
          l.orderHash === swap.orderHash && l.msg.startsWith('the confirmed fill left the canonical chain'),
      ),
    ).toBeDefined();
    expect(completed.details.dstChainTxHash).toBe(removed);
    expect((await fillsOf(swap.orderHash)).map((f) => f.transactionHash)).toEqual([removed]);
  }, 180_000);
});
