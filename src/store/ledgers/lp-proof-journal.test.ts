import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../../devnet/devnet.ts';
import type { OrderTerms } from '../../domain/order-typed-data.ts';
import { openLpJournal } from './lp-journal.ts';

const wallet = privateKeyToAccount(ANVIL_KEYS[4]);
const order = { fillDeadline: 1_900_000_000n, inputToken: wallet.address } as unknown as OrderTerms;

/**
 * A fill proven in a batch, then taken off the chain with its proof by a reorg deeper than the confirmations: the
 * fill opened again (or sent afresh) is to prove again, on a real journal file.
 */
describe('LP journal: a fill sent again after a deep reorg', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-proofs-')), 'journal.sqlite');
  const journal = openLpJournal(file);
  afterAll(() => journal.close());

  /** The fill as the filler writes it down: the row to prove in the fill's ledger write. */
  const fill = async (orderHash: Hex, seq: number) =>
    (await journal.ledger.record({
      action: { subject: orderHash, kind: 'fill', seq, chain: 'b', from: wallet.address, at: Date.now() },
      chainNonce: seq,
      guard: async (trx) => {
        await journal.proofs.recordFill(trx, {
          orderHash,
          orderId: `order-${orderHash.slice(2, 6)}`,
          outputChain: 'b',
          inputChain: 'a',
          escrow: wallet.address,
          order,
        });
        return true;
      },
      sign: async (n) => ({
        rawTx: await wallet.signTransaction({ chainId: 1, nonce: n, gas: 21_000n, maxFeePerGas: 1n }),
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 0n,
      }),
    }))!;
  const row = async (orderHash: Hex) =>
    (await journal.proofs.unproven()).find((f) => f.orderHash === orderHash.toLowerCase()) ?? null;
  const proveInBatch = async (orderHash: Hex, block: bigint, batchId: string) => {
    await journal.proofs.noteFilled(orderHash, Date.now(), block);
    const claimed = await journal.ledger.record({
      action: { subject: batchId, kind: 'prove', seq: 0, chain: 'b', from: wallet.address, at: Date.now() },
      chainNonce: 100 + Number(block),
      guard: (trx) => journal.proofs.claim(trx, batchId, 'b', [orderHash], Date.now()),
      sign: async (n) => ({
        rawTx: await wallet.signTransaction({ chainId: 1, nonce: n, gas: 21_000n, maxFeePerGas: 1n }),
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 0n,
      }),
    });
    expect(claimed).not.toBeNull();
    await journal.proofs.closeBatch(batchId, 'proven');
    expect(await row(orderHash)).toBeNull();
  };

  it('a confirmed fill opened again is unproven again, out of its batch, its fill block kept as a lower bound', async () => {
    const hash: Hex = `0x${'01'.repeat(32)}`;
    const first = await fill(hash, 0);
    await journal.ledger.finish(
      first.action.id,
      { txHash: first.attempt.txHash, status: 'confirmed' },
      Date.now(),
    );
    await proveInBatch(hash, 40n, 'prove-1');

    expect(await journal.reopenAction(first.action.id, Date.now())).toBe(true);
    expect(await row(hash)).toMatchObject({
      status: 'unproven',
      batchId: null,
      filledAt: null,
      fillBlock: 40n,
    });
  });

  it('a fresh fill at the next seq is unproven again too', async () => {
    const hash: Hex = `0x${'02'.repeat(32)}`;
    const first = await fill(hash, 0);
    await journal.ledger.finish(
      first.action.id,
      { txHash: first.attempt.txHash, status: 'confirmed' },
      Date.now(),
    );
    await proveInBatch(hash, 50n, 'prove-2');

    await fill(hash, 1);
    expect(await row(hash)).toMatchObject({
      status: 'unproven',
      batchId: null,
      filledAt: null,
      fillBlock: 50n,
    });
  });
});
