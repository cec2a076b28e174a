import type { PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { TxAction, TxAttempt, TxLedger } from './tx-ledger.ts';
import {
  type BroadcastAnswer,
  sendingFees,
  TRANSFER_GAS,
  type TxChainSettings,
  type TxLog,
  type TxMetrics,
  type TxOutcome,
  type TxStats,
} from './tx-sender.ts';

/** Fills the nonces below `lowest` that no transaction holds; the number written down. */
export type NonceGapRepair<Guard> = (
  chain: string,
  account: PrivateKeyAccount,
  lowest: TxAction,
  guard: Guard,
) => Promise<number>;

export function createNonceGapRepair<Guard>(deps: {
  ledger: TxLedger<Guard>;
  chains: (name: string) => TxChainSettings;
  rpc: (name: string) => PublicClient;
  log: TxLog;
  now: () => number;
  stats: TxStats;
  metrics?: TxMetrics;
  broadcast: (action: TxAction, tx: TxAttempt) => Promise<BroadcastAnswer>;
}): NonceGapRepair<Guard> {
  const { ledger, rpc, log, now, stats, metrics, broadcast } = deps;
  /** Gaps already reported, per chain and sender: logged once, counted once. */
  const reportedGaps = new Set<string>();

  async function submitCancel(
    chain: string,
    account: PrivateKeyAccount,
    nonce: number,
    subject: string,
    guard: Guard,
  ): Promise<TxOutcome | null> {
    const settings = deps.chains(chain);
    const fees = await sendingFees(rpc(chain), settings.maxFeePerGas);
    const at = now();
    const recorded = await ledger.record({
      action: { subject, kind: 'nonce-gap', seq: nonce, chain, from: account.address, at },
      chainNonce: nonce,
      nonce,
      guard,
      purpose: 'cancel',
      sign: async (n) => ({
        rawTx: await account.signTransaction({
          chainId: settings.chainId,
          type: 'eip1559',
          to: account.address,
          value: 0n,
          nonce: n,
          gas: TRANSFER_GAS,
          ...fees,
        }),
        ...fees,
      }),
    });
    if (!recorded) return null;
    await broadcast(recorded.action, recorded.attempt);
    return { status: 'pending', txHash: recorded.attempt.txHash };
  }

  /**
   * Nonces below the sender's lowest unfinished one that no transaction holds (the chain's pending count is below
   * it): every later transaction queues behind them. Each is spent on a zero-value self-transfer, recorded like any
   * action, and the gap is logged and counted once.
   */
  return async function repairGap(
    chain: string,
    account: PrivateKeyAccount,
    lowest: TxAction,
    guard: Guard,
  ): Promise<number> {
    const pending = await rpc(chain).getTransactionCount({ address: account.address, blockTag: 'pending' });
    if (pending >= lowest.nonce) return 0;
    const key = `${chain}:${account.address}:${pending}-${lowest.nonce}`;
    if (!reportedGaps.has(key)) {
      reportedGaps.add(key);
      stats.gapsRepaired++;
      metrics?.nonceGapsRepaired.inc({ chain });
      log.warn(
        { chain, from: account.address, pendingNonce: pending, lowestRecordedNonce: lowest.nonce },
        'nonce gap: no transaction holds these nonces and later ones queue behind them; filling them with zero-value self-transfers',
      );
    }
    let filled = 0;
    for (let nonce = pending; nonce < lowest.nonce; nonce++) {
      const recorded = await submitCancel(chain, account, nonce, lowest.subject, guard);
      if (recorded) filled++;
    }
    return filled;
  };
}
