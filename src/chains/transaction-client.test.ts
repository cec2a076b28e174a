import { type Hex, keccak256, parseGwei, TransactionReceiptNotFoundError } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilKnobs, anvilKnobs } from '../../test/support/anvil-knobs.ts';
import { seedOrderRow } from '../../test/support/order-rows.ts';
import { openTestDatabase } from '../../test/support/test-database.ts';
import { listChainActionTxs } from '../store/chain-action-txs-store.ts';
import type { FerryDatabase } from '../store/database.ts';
import { findChainAction } from '../store/settlement-store.ts';
import { type AnvilInstance, startAnvil } from './anvil-process.ts';
import { createChainRegistry } from './chain-registry.ts';
import { createTransactionClient, NonceConflictError } from './transaction-client.ts';

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
    const transactions = createTransactionClient({ registry, database, log, receiptWaitMs: 0 });
    const account = privateKeyToAccount(generatePrivateKey());
    await knobs.setBalance(account.address, 10n ** 21n);
    const orderId = await seedOrderRow(database);
    const submit = async () => {
      const outcome = await transactions.submit({
        orderId,
        kind: 'deposit',
        call: { chain: 'test-chain', to: SINK, data: '0x' },
        account,
        guard: async () => true,
      });
      if (!outcome) throw new Error('not recorded');
      return outcome;
    };
    const action = async () => {
      const row = await findChainAction(database.db, orderId, 'deposit');
      if (!row) throw new Error('no action');
      return row;
    };
    const advance = async () => transactions.advance(await action(), account);
    const txs = async () => listChainActionTxs(database.db, (await action()).id);
    return { transactions, account, logs, submit, action, advance, txs };
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
    const raised = (x: string) => (BigInt(x) * 1125n + 999n) / 1000n;
    expect(BigInt(replacement!.max_fee_per_gas)).toBeGreaterThanOrEqual(raised(original!.max_fee_per_gas));
    expect(BigInt(replacement!.max_fee_per_gas)).toBeGreaterThan(parseGwei('500'));
    expect(BigInt(replacement!.max_priority_fee_per_gas)).toBeGreaterThanOrEqual(
      raised(original!.max_priority_fee_per_gas),
    );

    await knobs.nextBaseFee(parseGwei('500'));
    await knobs.mine();
    const done = await t.advance();
    expect(done).toEqual({ status: 'success', txHash: replacement!.tx_hash });
    expect(await minedIn(original!.tx_hash)).toBeNull();
    expect((await t.action()).tx_hash).toBe(replacement!.tx_hash);
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
    for (const tx of txs) expect(BigInt(tx.max_fee_per_gas)).toBeLessThanOrEqual(parseGwei('50'));
    expect(BigInt(txs.at(-1)!.max_fee_per_gas)).toBe(parseGwei('50'));
    expect(t.transactions.stats().feeCapped).toBe(1);
    expect(t.logs.filter((l) => /fee cap/.test(l.message))).toHaveLength(1);
    expect((await t.action()).fee_capped_at).not.toBeNull();

    await knobs.nextBaseFee(parseGwei('1'));
    expect((await t.advance()).status).toBe('pending');
    await knobs.mine();
    expect(await t.advance()).toEqual({ status: 'success', txHash: txs.at(-1)!.tx_hash });
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
});
