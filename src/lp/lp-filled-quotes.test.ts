import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChainClients } from '../chains/settlement/lp-chain-clients.ts';
import { ANVIL_KEYS } from '../devnet/devnet.ts';
import { openLpJournal } from '../store/ledgers/lp-journal.ts';
import type { ChainInfo } from './ferry-api.ts';
import { markFilledQuotes } from './lp-filled-quotes.ts';
import type { PassReport } from './lp-pass-report.ts';

const wallet = privateKeyToAccount(ANVIL_KEYS[4]);
const TOKEN = '0x00000000000000000000000000000000000000aa';

/**
 * A quote is marked filled from the bot's own ledger and the output chain, whatever Ferry lists: the journal is
 * real (SQLite, as `ferry lp` opens it); the output chain is a stand-in answering FerryFill's fillTimes.
 */
describe('LP bot: quotes marked filled from the ledger', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-filled-')), 'journal.sqlite');
  const journal = openLpJournal(file);
  afterAll(() => journal.close());

  const quote = async (quoteId: string) =>
    journal.recordQuote({
      quoteId,
      quoteRequestId: `qr-${quoteId}`,
      inputChain: 'a',
      inputToken: TOKEN,
      inputAmount: 1_000_000n,
      outputChain: 'b',
      outputToken: TOKEN,
      outputAmount: 990_000n,
      offerer: '',
      spreadBps: 25,
      status: 'ordered',
      reservedUntil: Date.now() + 3_600_000,
    });
  /** The fill of `quoteId` as the filler writes it down: its output (with quote and order) in the ledger write. */
  const fill = async (quoteId: string, orderHash: Hex, nonce: number) => {
    const recorded = await journal.ledger.record({
      action: { subject: orderHash, kind: 'fill', seq: 0, chain: 'b', from: wallet.address, at: Date.now() },
      chainNonce: nonce,
      guard: async (trx) => {
        await journal.fillOutputs.record(trx, {
          orderHash,
          chain: 'b',
          token: TOKEN,
          amount: 990_000n,
          quoteId,
          orderId: `order-${quoteId}`,
        });
        return true;
      },
      sign: async (n) => ({
        rawTx: await wallet.signTransaction({ chainId: 1, nonce: n, gas: 21_000n, maxFeePerGas: 1n }),
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 0n,
      }),
    });
    return recorded!;
  };

  it('marks an ordered quote filled once its fill is confirmed in the ledger and on chain, and only then', async () => {
    /** Who filled each order on chain (FerryFill's fillerOf), and so at what time (fillTimes). */
    const filledOnChain = new Map<string, Hex>();
    const clients = {
      public: {
        getBlockNumber: async () => 1n,
        readContract: async ({ functionName, args }: { functionName: string; args: [Hex] }) => {
          const filler = filledOnChain.get(args[0]);
          if (functionName === 'fillerOf') return filler ?? `0x${'00'.repeat(20)}`;
          return filler ? 1_700_000_000n : 0n;
        },
      },
      wallet: { account: wallet },
    } as unknown as ChainClients;
    const deps = {
      journal,
      chain: async (name: string) => ({ name, fill: TOKEN }) as unknown as ChainInfo,
      clientsFor: () => clients,
    };
    const pass = async () => {
      const report = { filled: [], errors: [] } as unknown as PassReport;
      await markFilledQuotes(deps, report, (subject, error) =>
        report.errors.push({ subject, message: String(error) }),
      );
      return report;
    };
    const h1: Hex = `0x${'01'.repeat(32)}`;
    const h2: Hex = `0x${'02'.repeat(32)}`;
    await quote('q1');
    await quote('q2');
    const f1 = await fill('q1', h1, 0);
    await fill('q2', h2, 1);

    // Sent, not yet at depth: still ordered.
    expect((await pass()).filled).toEqual([]);
    expect((await journal.findQuote('q1'))?.status).toBe('ordered');

    await journal.ledger.finish(f1.action.id, { txHash: f1.attempt.txHash, status: 'confirmed' }, Date.now());
    // Confirmed in the ledger but the chain shows no fill (a reorg took it): not filled.
    expect((await pass()).filled).toEqual([]);
    // Another filler's fill of the order (once it was open to any) is not this bot's.
    filledOnChain.set(h1, `0x${'0f'.repeat(20)}`);
    expect((await pass()).filled).toEqual([]);
    filledOnChain.set(h1, wallet.address);
    const report = await pass();
    expect(report.filled).toEqual([{ orderId: 'order-q1', orderHash: h1, txHash: f1.attempt.txHash }]);
    expect((await journal.findQuote('q1'))?.status).toBe('filled');
    expect((await journal.findQuote('q2'))?.status).toBe('ordered');
    // Once: a filled quote is not reported again.
    expect((await pass()).filled).toEqual([]);
  });
});
