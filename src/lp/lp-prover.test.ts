import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChainClients } from '../chains/settlement/lp-chain-clients.ts';
import { ANVIL_KEYS } from '../devnet/devnet.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import { type LpJournal, openLpJournal } from '../store/ledgers/lp-journal.ts';
import type { ChainInfo } from './ferry-api.ts';
import type { BotTransactions } from './lp-filler.ts';
import type { PassReport } from './lp-pass-report.ts';
import { createProver } from './lp-prover.ts';

const HASH = `0x${'ab'.repeat(32)}` as Hex;
const GRACE = 600n;
const account = privateKeyToAccount(ANVIL_KEYS[4]);

/**
 * The bot's journal is real (SQLite, as `ferry lp` opens it); the chains are stand-ins that answer what a reorg
 * leaves: no receipt for the fill's transaction, and the escrow's status and settleGrace.
 */
describe('LP prover: a fill confirmed in the ledger whose receipt is gone', () => {
  const dirs: string[] = [];
  const journals: LpJournal[] = [];
  afterEach(async () => {
    for (const j of journals.splice(0)) await j.close();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  const setup = async (fillDeadline: bigint, escrow: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-prover-'));
    dirs.push(dir);
    const file = path.join(dir, 'journal.db');
    const journal = openLpJournal(file);
    journals.push(journal);
    // As the filler writes it down: the row to prove in the fill's ledger write; then confirmed at depth.
    const order = { fillDeadline, inputToken: account.address } as unknown as OrderTerms;
    const recorded = await journal.ledger.record({
      action: { subject: HASH, kind: 'fill', seq: 0, chain: 'out', from: account.address, at: Date.now() },
      chainNonce: 0,
      guard: async (trx) => {
        const fill = { orderHash: HASH, orderId: 'order-1', outputChain: 'out', inputChain: 'in' };
        await journal.proofs.recordFill(trx, { ...fill, escrow: account.address, order });
        return true;
      },
      sign: async (n) => ({
        rawTx: await account.signTransaction({ chainId: 1, nonce: n, gas: 21_000n, maxFeePerGas: 1n }),
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 0n,
      }),
    });
    const { action, attempt } = recorded!;
    await journal.ledger.finish(action.id, { txHash: attempt.txHash, status: 'confirmed' }, Date.now());
    let reads = 0;
    const clients = {
      public: {
        getTransactionReceipt: async () => {
          reads++;
          throw new Error('receipt not found');
        },
        readContract: async ({ functionName }: { functionName: string }) => {
          reads++;
          if (functionName === 'orderStatus') return { none: 0n, active: 1n, settled: 2n }[escrow];
          if (functionName === 'settleGrace') return GRACE;
          throw new Error(`unexpected read ${functionName}`);
        },
      },
    } as unknown as ChainClients;
    const prover = createProver({
      account,
      journal,
      transactions: {} as BotTransactions,
      log: { debug() {}, info() {}, warn() {}, error() {} },
      proveBatch: 5,
      proveAfterMs: 1_000,
      chain: async (name) => ({ name }) as unknown as ChainInfo,
      clientsFor: () => clients,
    });
    const pass = () => {
      const report: PassReport = {
        quoted: [],
        filled: [],
        proved: [],
        errors: [],
        retryAfterMs: null,
        nextPassAt: null,
      };
      return prover.provePass(report, (subject, error) =>
        report.errors.push({ subject, message: String(error) }),
      );
    };
    return { journal, pass, reads: () => reads };
  };
  const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000));

  it('waits (a pass a second) before the fill deadline: its fill may still be sent again', async () => {
    const { journal, pass } = await setup(nowSeconds() + 3_600n, 'active');
    expect(await pass()).not.toBeNull();
    expect((await journal.proofs.unproven()).map((f) => f.orderHash)).toEqual([HASH.toLowerCase()]);
  });

  it('keeps it while the refund has not opened and the escrow still holds the order', async () => {
    const { journal, pass } = await setup(nowSeconds() - 60n, 'active');
    expect(await pass()).not.toBeNull();
    expect(await journal.proofs.unproven()).toHaveLength(1);
  });

  it('retires it once the refund opened (fillDeadline + settleGrace): no pass a second for good', async () => {
    const { journal, pass, reads } = await setup(nowSeconds() - GRACE - 60n, 'active');
    expect(await pass()).toBeNull();
    expect(await journal.proofs.unproven()).toHaveLength(0);
    const before = reads();
    expect(await pass()).toBeNull();
    expect(reads()).toBe(before);
  });

  it('retires it once the escrow settled the order, grace or not', async () => {
    const { journal, pass } = await setup(nowSeconds() - 60n, 'settled');
    expect(await pass()).toBeNull();
    expect(await journal.proofs.unproven()).toHaveLength(0);
  });
});
