import { keccak256, type PublicClient, parseTransaction } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type Fees, replacementFees } from '../../domain/fee-bump.ts';
import type { TxCrashPoint } from '../../process/fault-injector.ts';
import type { TxAction, TxAttempt, TxLedger } from './tx-ledger.ts';
import {
  estimateFees,
  TRANSFER_GAS,
  type TxChainSettings,
  type TxLog,
  type TxMetrics,
  type TxStats,
} from './tx-sender.ts';

const REPLACING = {
  cancel: 'cancelling: spending the nonce on a zero-value self-transfer',
  underpriced: 'replacing a transaction the node refused as underpriced',
  slow: 'replacing a transaction that was not mined in time',
} as const;

/**
 * Signs and writes down a successor of `newest` at the same nonce with higher fees: the same call, or a
 * zero-value self-transfer when `cancel`. Null when the fee cap leaves no room or another writer won.
 */
export type TxReplacer = (
  action: TxAction,
  newest: TxAttempt,
  account: PrivateKeyAccount,
  why: keyof typeof REPLACING,
) => Promise<TxAttempt | null>;

export function createTxReplacer<Guard>(deps: {
  ledger: TxLedger<Guard>;
  chains: (name: string) => TxChainSettings;
  rpc: (name: string) => PublicClient;
  log: TxLog;
  now: () => number;
  stats: TxStats;
  metrics?: TxMetrics;
  faults: { at(point: TxCrashPoint): void };
}): TxReplacer {
  const { ledger, chains, rpc, log, now, stats, metrics, faults } = deps;
  return async (action, newest, account, why) => {
    const cancel = why === 'cancel';
    const chain = chains(action.chain);
    const estimate = await estimateFees(rpc(action.chain));
    const previous: Fees = newest;
    const fees = replacementFees(previous, estimate, chain.maxFeePerGas);
    if (!fees) {
      if (await ledger.markFeeCapped(action.id, now())) {
        stats.feeCapped++;
        log.warn(
          {
            actionId: action.id,
            subject: action.subject,
            kind: action.kind,
            chain: action.chain,
            maxFeePerGas: String(newest.maxFeePerGas),
            estimate: String(estimate.maxFeePerGas),
          },
          "transaction is at the chain's fee cap (maxFeePerGasGwei); waiting for fees to fall",
        );
      }
      return null;
    }
    faults.at(`before-replace:${action.kind}`);
    const signed = parseTransaction(newest.rawTx);
    const body = cancel
      ? { to: account.address, data: undefined, value: 0n, gas: TRANSFER_GAS }
      : { to: signed.to ?? undefined, data: signed.data, value: signed.value, gas: signed.gas };
    const raw = await account.signTransaction({
      chainId: chain.chainId,
      type: 'eip1559',
      nonce: action.nonce,
      ...body,
      ...fees,
    });
    const tx: TxAttempt = {
      txHash: keccak256(raw),
      actionId: action.id,
      attempt: newest.attempt + 1,
      rawTx: raw,
      ...fees,
      status: 'recorded',
      purpose: cancel ? 'cancel' : newest.purpose,
      createdAt: now(),
    };
    if (!(await ledger.recordReplacement(tx, newest.attempt))) return null;
    faults.at(`after-replace-record:${action.kind}`);
    if (!cancel) {
      stats.replacements++;
      metrics?.feeReplacements.inc({ chain: action.chain, kind: action.kind });
    }
    log.info(
      {
        actionId: action.id,
        kind: action.kind,
        chain: action.chain,
        nonce: action.nonce,
        attempt: tx.attempt,
        replaces: newest.txHash,
        txHash: tx.txHash,
        maxFeePerGas: String(tx.maxFeePerGas),
      },
      REPLACING[why],
    );
    return tx;
  };
}
