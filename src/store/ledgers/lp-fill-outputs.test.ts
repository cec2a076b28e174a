import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../../devnet/devnet.ts';
import { openLpJournal } from './lp-journal.ts';

const wallet = privateKeyToAccount(ANVIL_KEYS[4]);
const TOKEN = '0x00000000000000000000000000000000000000aa';

/**
 * The outputs of the LP bot's fills in flight, on a real journal file: held back from the balance from the write
 * that records the fill until a block holds it, and found again by a journal opened after a restart.
 */
describe('LP journal: outputs of fills in flight', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-outputs-')), 'journal.sqlite');
  let journal = openLpJournal(file);
  afterAll(() => journal.close());

  /** Records a fill of `amount` the way the filler does: its output in the ledger write's guard. */
  const recordFill = async (orderHash: string, amount: bigint, chain = 'b', refuse = false) =>
    journal.ledger.record({
      action: { subject: orderHash, kind: 'fill', seq: 0, chain, from: wallet.address, at: Date.now() },
      chainNonce: 0,
      guard: async (trx) => {
        await journal.fillOutputs.record(trx, { orderHash, chain, token: TOKEN, amount });
        return !refuse;
      },
      sign: async (nonce) => ({
        rawTx: await wallet.signTransaction({
          chainId: chain === 'c' ? 2 : 1,
          nonce,
          gas: 21_000n,
          maxFeePerGas: 1n,
        }),
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 0n,
      }),
    });

  it('holds a recorded fill until a block holds it, per chain and token, and after a restart', async () => {
    const first = await recordFill('0x01', 3_000_000n);
    await recordFill('0x02', 2_000_000n);
    await recordFill('0x03', 7n, 'c');
    expect(await journal.fillOutputs.inFlight('b', TOKEN.toUpperCase().replace('0X', '0x'))).toBe(5_000_000n);
    expect(await journal.fillOutputs.inFlight('c', TOKEN)).toBe(7n);
    expect(await journal.fillOutputs.inFlight('b', `0x${'bb'.repeat(20)}`)).toBe(0n);

    // A guard that refuses writes nothing: the output is not held.
    expect(await recordFill('0x04', 9n, 'b', true)).toBeNull();
    expect(await journal.fillOutputs.inFlight('b', TOKEN)).toBe(5_000_000n);

    // Mined (not yet at depth): the balance already shows it.
    await journal.ledger.setAttemptStatus(first!.attempt.txHash, 'mined', Date.now());
    expect(await journal.fillOutputs.inFlight('b', TOKEN)).toBe(2_000_000n);

    await journal.close();
    journal = openLpJournal(file);
    expect(await journal.fillOutputs.inFlight('b', TOKEN)).toBe(2_000_000n);
    expect(await journal.hasOpenActions()).toBe(true);
  });
});
