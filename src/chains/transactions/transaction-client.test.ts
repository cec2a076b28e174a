import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Hex, keccak256, parseGwei, TransactionReceiptNotFoundError } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilKnobs, anvilKnobs } from '../../../test/support/anvil-knobs.ts';
import { seedOrderRow } from '../../../test/support/order-rows.ts';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import { type AnvilInstance, startAnvil } from '../../devnet/anvil-process.ts';
import type { FerryDatabase } from '../../store/engine/database.ts';
import { openLpJournal } from '../../store/ledgers/lp-journal.ts';
import { findChainAction } from '../../store/ledgers/settlement-store.ts';
import { createStoreTxLedger } from '../../store/ledgers/tx-ledger-store.ts';
import { createChainRegistry, registryChain } from '../chain-registry.ts';
import { createTransactionClient } from './transaction-client.ts';
import { NonceConflictError } from './tx-sender.ts';

const CHAIN_ID = 7_331;
const SINK = '0x00000000000000000000000000000000000000aa' as const;

/**
 * The transaction client against a real anvil whose blocks are mined by hand, so each condition (a base-fee
 * spike, a wiped mempool, a reorg, a nonce taken by someone else) happens at a known moment.
 */
describe('transaction client on a real chain', () => {
  let anvil: AnvilInstance;
  let knobs: AnvilKnobs;
  let database: FerryDatabase;
  let closeDatabase: () => Promise<void>;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, port: 0 });
    knobs = anvilKnobs(anvil.rpcUrl);
    await knobs.blockTime(0);
    ({ database, close: closeDatabase } = await openTestDatabase());
  });
  afterAll(async () => {
    await closeDatabase?.();
    await anvil?.stop();
  });

  async function setup(chain: {
    replaceAfterSeconds?: number;
    maxFeePerGasGwei?: number;
    confirmations?: number;
  }) {
    const registry = createChainRegistry({
      chains: [
        {
          name: 'test-chain',
          chainId: CHAIN_ID,
          rpcUrl: anvil.rpcUrl,
          contracts: { escrow: SINK, fill: SINK },
          tokens: [],
          replaceAfterSeconds: 60,
          ...chain,
        },
      ],
    });
    const logs: { level: string; message: string }[] = [];
    const log = {
      info: (_: object, message: string) => logs.push({ level: 'info', message }),
      warn: (_: object, message: string) => logs.push({ level: 'warn', message }),
      error: (_: object, message: string) => logs.push({ level: 'error', message }),
    };
    const ledger = createStoreTxLedger(database);
    const transactions = createTransactionClient({
      ledger,
      chains: (name) => registryChain(registry, name),
      rpc: () => knobs.client,
      log,
      receiptWaitMs: 0,
    });
    const account = privateKeyToAccount(generatePrivateKey());
    await knobs.setBalance(account.address, 10n ** 21n);
    const orderId = await seedOrderRow(database);
    const submit = async () => {
      const sent = await transactions.submit({
        subject: orderId,
        kind: 'deposit',
        call: { chain: 'test-chain', to: SINK, data: '0x' },
        account,
        guard: async () => true,
      });
      if (!sent) throw new Error('not recorded');
      return sent.outcome;
    };
    const action = async () => {
      const row = await findChainAction(database.db, orderId, 'deposit');
      if (!row) throw new Error('no action');
      return row;
    };
    const advance = async () => transactions.advance(await action(), account);
    const txs = async () => ledger.attempts((await action()).id);
    const drive = (abandon = false) =>
      transactions.drive({
        chain: 'test-chain',
        account,
        abandoned: async (open) => new Set(abandon ? open.map((a) => a.id) : []),
        guard: async () => true,
        onError: (_, error) => {
          throw error;
        },
      });
    return {
      transactions,
      ledger,
      account,
      logs,
      submit,
      action,
      advance,
      txs,
      orderId,
      drive,
      registry,
      log,
    };
  }

  async function minedIn(hash: string): Promise<bigint | null> {
    try {
      return (await knobs.client.getTransactionReceipt({ hash: hash as Hex })).blockNumber;
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }
  }

  it('replaces a transaction priced below a raised base fee (+12.5 % at least) and completes with the replacement', async () => {
    const t = await setup({ replaceAfterSeconds: 1 });
    const first = await t.submit();
    expect(first.status).toBe('pending');
    // The spike lands before the first transaction is mined: it can no longer pay the base fee.
    await knobs.nextBaseFee(parseGwei('500'));
    await knobs.mine();
    expect(await minedIn(first.txHash)).toBeNull();

    let outcome = await t.advance();
    for (let i = 0; i < 5 && (await t.txs()).length < 2; i++) outcome = await t.advance();
    expect(outcome.status).toBe('pending');
    const [original, replacement] = await t.txs();
    expect(replacement).toBeDefined();
    const raised = (x: bigint) => (x * 1125n + 999n) / 1000n;
    expect(replacement!.maxFeePerGas).toBeGreaterThanOrEqual(raised(original!.maxFeePerGas));
    expect(replacement!.maxFeePerGas).toBeGreaterThan(parseGwei('500'));
    expect(replacement!.maxPriorityFeePerGas).toBeGreaterThanOrEqual(raised(original!.maxPriorityFeePerGas));

    await knobs.nextBaseFee(parseGwei('500'));
    await knobs.mine();
    const done = await t.advance();
    expect(done).toEqual({ status: 'success', txHash: replacement!.txHash });
    expect(await minedIn(original!.txHash)).toBeNull();
    expect((await t.action()).txHash).toBe(replacement!.txHash);
    expect(t.transactions.stats().replacements).toBeGreaterThanOrEqual(1);
  });

  it('at the fee cap it waits, logs and counts once, and completes when the base fee falls', async () => {
    const t = await setup({ replaceAfterSeconds: 1, maxFeePerGasGwei: 50 });
    await t.submit();
    await knobs.nextBaseFee(parseGwei('500'));
    await knobs.mine();
    for (let i = 0; i < 6; i++) {
      expect((await t.advance()).status).toBe('pending');
      await knobs.nextBaseFee(parseGwei('500'));
      await knobs.mine();
    }
    const txs = await t.txs();
    for (const tx of txs) expect(tx.maxFeePerGas).toBeLessThanOrEqual(parseGwei('50'));
    expect(txs.at(-1)!.maxFeePerGas).toBe(parseGwei('50'));
    expect(t.transactions.stats().feeCapped).toBe(1);
    expect(t.logs.filter((l) => /fee cap/.test(l.message))).toHaveLength(1);
    expect(await t.ledger.markFeeCapped((await t.action()).id, Date.now())).toBe(false);

    await knobs.nextBaseFee(parseGwei('1'));
    expect((await t.advance()).status).toBe('pending');
    await knobs.mine();
    expect(await t.advance()).toEqual({ status: 'success', txHash: txs.at(-1)!.txHash });
  });

  it('broadcasts the same bytes again after the mempool was wiped', async () => {
    const t = await setup({});
    const first = await t.submit();
    await knobs.dropAll();
    expect(await knobs.poolSize()).toBe(0);
    expect(await t.advance()).toEqual({ status: 'pending', txHash: first.txHash });
    expect(await knobs.poolSize()).toBe(1);
    await knobs.mine();
    expect(await t.advance()).toEqual({ status: 'success', txHash: first.txHash });
    expect(await t.txs()).toHaveLength(1);
  });

  it('a nonce taken by a transaction outside its records is reported once and not retried', async () => {
    const t = await setup({ replaceAfterSeconds: 1 });
    const first = await t.submit();
    await knobs.dropAll();
    // The same key used elsewhere: another transaction takes the nonce.
    const outside = await t.account.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      to: t.account.address,
      value: 1n,
      nonce: Number((await t.action()).nonce),
      gas: 21_000n,
      maxFeePerGas: parseGwei('100'),
      maxPriorityFeePerGas: parseGwei('2'),
    });
    await knobs.client.sendRawTransaction({ serializedTransaction: outside });
    await knobs.mine();
    expect(await minedIn(keccak256(outside))).not.toBeNull();

    await expect(t.advance()).rejects.toBeInstanceOf(NonceConflictError);
    const recorded = (await t.txs()).length;
    for (let i = 0; i < 3; i++) await expect(t.advance()).rejects.toBeInstanceOf(NonceConflictError);
    expect((await t.action()).status).toBe('nonce-conflict');
    expect(t.logs.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(t.transactions.stats().nonceConflicts).toBe(1);
    expect(await t.txs()).toHaveLength(recorded);
    expect(await minedIn(first.txHash)).toBeNull();
  });

  it('a transaction reorged out before its confirmations is broadcast again, never taken as done', async () => {
    const t = await setup({ confirmations: 3 });
    const first = await t.submit();
    await knobs.mine();
    expect(await minedIn(first.txHash)).not.toBeNull();
    // Mined but one block deep: not done yet.
    expect(await t.advance()).toEqual({ status: 'pending', txHash: first.txHash });

    await knobs.reorg(1);
    expect(await minedIn(first.txHash)).toBeNull();
    expect(await t.advance()).toEqual({ status: 'pending', txHash: first.txHash });
    expect(t.transactions.stats().reorged).toBe(1);
    expect(await knobs.poolSize()).toBe(1);
    expect((await t.action()).status).toBe('recorded');

    await knobs.mine(2);
    expect((await t.advance()).status).toBe('pending');
    await knobs.mine();
    expect(await t.advance()).toEqual({ status: 'success', txHash: first.txHash });
    expect((await t.action()).status).toBe('confirmed');
    expect(await t.txs()).toHaveLength(1);
  });

  it('an action no longer wanted is cancelled: its nonce is spent on a zero-value self-transfer', async () => {
    const t = await setup({});
    const first = await t.submit();
    await knobs.dropAll();
    // Its order ended: the drive spends the nonce instead of sending the call again.
    await t.drive(true);
    const [original, cancel] = await t.txs();
    expect(cancel?.purpose).toBe('cancel');
    expect(cancel!.maxFeePerGas).toBeGreaterThan(original!.maxFeePerGas);
    await knobs.mine();
    expect(await t.advance()).toEqual({ status: 'cancelled', txHash: cancel!.txHash });
    const mined = await knobs.client.getTransaction({ hash: cancel!.txHash });
    expect([mined.to?.toLowerCase(), mined.value, mined.nonce]).toEqual([
      t.account.address.toLowerCase(),
      0n,
      (await t.action()).nonce,
    ]);
    expect(await minedIn(first.txHash)).toBeNull();
    expect(t.transactions.stats().cancelled).toBe(1);
  });

  it('a nonce gap below the lowest unfinished action is filled with self-transfers, logged and counted once', async () => {
    const t = await setup({});
    const pending = await knobs.client.getTransactionCount({
      address: t.account.address,
      blockTag: 'pending',
    });
    // A transaction written down two nonces ahead of the chain: nothing holds the two below it.
    const recorded = await t.ledger.record({
      action: {
        subject: t.orderId,
        kind: 'deposit',
        seq: 0,
        chain: 'test-chain',
        from: t.account.address,
        at: 1,
      },
      chainNonce: pending,
      nonce: pending + 2,
      guard: async () => true,
      sign: async (nonce) => {
        const fees = { maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1') };
        const rawTx = await t.account.signTransaction({
          chainId: CHAIN_ID,
          type: 'eip1559',
          to: SINK,
          nonce,
          gas: 21_000n,
          ...fees,
        });
        return { rawTx, ...fees };
      },
    });
    await t.drive();
    await t.drive();
    expect(t.transactions.stats().gapsRepaired).toBe(1);
    expect(t.logs.filter((l) => /nonce gap/.test(l.message))).toHaveLength(1);
    await knobs.mine();
    await t.drive();
    const done = await findChainAction(database.db, t.orderId, 'deposit');
    expect([done?.id, done?.status]).toEqual([recorded!.action.id, 'confirmed']);
    const count = await knobs.client.getTransactionCount({ address: t.account.address, blockTag: 'latest' });
    expect(count).toBe(pending + 3);
    expect(await t.ledger.unfinished('test-chain', t.account.address)).toEqual([]);
  });

  it('a sender without gas: the transaction stays written down, unreplaced, and goes out once the sender is funded', async () => {
    const t = await setup({ replaceAfterSeconds: 1 });
    await knobs.setBalance(t.account.address, 0n);
    const first = await t.submit();
    expect(first.status).toBe('pending');
    expect(await knobs.poolSize()).toBe(0);
    // Longer than replaceAfterSeconds, passes in between: no node ever took it, so it is not "slow".
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 600));
      await t.drive();
    }
    expect(await t.txs()).toHaveLength(1);
    expect(t.logs.filter((l) => /insufficient funds/.test(l.message))).toHaveLength(1);
    await knobs.setBalance(t.account.address, 10n ** 21n);
    await t.drive();
    expect(await knobs.poolSize()).toBe(1);
    await knobs.mine();
    expect(await t.advance()).toEqual({ status: 'success', txHash: first.txHash });
  });

  it('over an LP journal file: a new client on the reopened file broadcasts what the old one wrote down', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-journal-')), 'journal.sqlite');
    const registry = createChainRegistry({
      chains: [
        {
          name: 'test-chain',
          chainId: CHAIN_ID,
          rpcUrl: anvil.rpcUrl,
          contracts: { escrow: SINK, fill: SINK },
          tokens: [],
        },
      ],
    });
    const account = privateKeyToAccount(generatePrivateKey());
    await knobs.setBalance(account.address, 10n ** 21n);
    const quiet = { info() {}, warn() {}, error() {} };
    const clientOver = (journal: ReturnType<typeof openLpJournal>, crash: boolean) =>
      createTransactionClient({
        ledger: journal.ledger,
        chains: (name) => registryChain(registry, name),
        rpc: () => knobs.client,
        log: quiet,
        receiptWaitMs: 0,
        // Stands for a process killed between writing the transaction down and broadcasting it.
        faults: {
          at: (point) => {
            if (crash && point === 'after-record:fill') throw new Error('killed');
          },
        },
      });
    const first = openLpJournal(file);
    await expect(
      clientOver(first, true).submit({
        subject: '0xorder',
        kind: 'fill',
        call: { chain: 'test-chain', to: SINK, data: '0x' },
        account,
        guard: async () => true,
      }),
    ).rejects.toThrow('killed');
    await first.close();
    expect(await knobs.poolSize()).toBe(0);

    const reopened = openLpJournal(file);
    try {
      const [open] = await reopened.ledger.unfinished('test-chain', account.address);
      expect(open?.kind).toBe('fill');
      await clientOver(reopened, false).drive({
        chain: 'test-chain',
        account,
        abandoned: async () => new Set(),
        guard: async () => true,
        onError: (_, error) => {
          throw error;
        },
      });
      expect(await knobs.poolSize()).toBe(1);
      await knobs.mine();
      expect(await minedIn(open!.txHash)).not.toBeNull();
    } finally {
      await reopened.close();
    }
  });
});
