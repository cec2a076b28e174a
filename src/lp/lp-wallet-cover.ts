import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { balanceOf, type ChainClients } from '../chains/settlement/lp-chain-clients.ts';
import { covers } from '../domain/lp-coverage.ts';
import type { LpJournal } from '../store/ledgers/lp-journal.ts';
import type { ChainInfo } from './ferry-api.ts';

const hex = (value: string) => value as Hex;

/** The fill wallet's balance of the output token and what the bot's quotes and orders hold of it (journal). */
export interface WalletCover {
  readonly held: bigint;
  readonly reserved: bigint;
  /** Why the wallet cannot take this quote now, or null. */
  readonly short: { msg: string; extra: Record<string, string> } | null;
}

/**
 * Whether the fill wallet can take this quote (or open order) now: it promises only what it can deliver, net of what
 * its other quotes and orders promise (covers, the rule Ferry checks), and one offerer's requests (however many
 * accounts ask for that wallet) hold at most their share of it, so other money movers still get quotes.
 */
export async function walletCover(
  deps: {
    readonly account: PrivateKeyAccount;
    readonly journal: LpJournal;
    clientsFor(info: ChainInfo): ChainClients;
  },
  shareMillionths: bigint,
  out: { info: ChainInfo; token: ChainInfo['tokens'][number] },
  offerer: string,
  outputAmount: bigint,
): Promise<WalletCover> {
  const { info, token } = out;
  const now = Date.now();
  const [held, reserved, offererHolds] = await Promise.all([
    balanceOf(deps.clientsFor(info), hex(token.address), deps.account.address),
    deps.journal.reserved(info.name, token.address, now),
    deps.journal.reserved(info.name, token.address, now, offerer),
  ]);
  const cap = (held * shareMillionths) / 1_000_000n;
  if (offererHolds + outputAmount > cap) {
    const msg =
      "not quoting yet: this offerer's open quotes would hold more than its share of the fill wallet";
    const extra = {
      offerer,
      offererHolds: `${offererHolds}`,
      cap: `${cap}`,
      token: token.symbol,
    };
    return { held, reserved, short: { msg, extra } };
  }
  if (covers(held, reserved, outputAmount)) return { held, reserved, short: null };
  return {
    held,
    reserved,
    short: {
      msg: 'not quoting yet: fill wallet holds too little of the output token',
      extra: { held: `${held}`, reserved: `${reserved}`, token: token.symbol },
    },
  };
}
