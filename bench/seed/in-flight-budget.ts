/**
 * What the bench LPs may owe in the seed's unfilled orders. Ferry refuses a quote its LP's fill balance on the
 * output chain and token does not cover together with the LP's open promises (live quotes, accepted quotes without
 * an order, unfilled orders), so no LP can reach a state where its unfilled orders exceed its balance; a seed
 * that put them there would have every quote of the scenarios refused (422) and measure the refusal.
 */
import { createPublicClient, erc20Abi, http } from 'viem';
import type { Address } from '../../src/domain/address.ts';
import type { ChainInfo } from './seed-rows.ts';

/**
 * The share of a bench LP's fill balance on a chain and token its unfilled historical orders there may take: the
 * rest is room for the scenarios' own promises, each still live when the next runs (quotes last 60 s). Per LP, at
 * most: 5 and 5b 3,000 quotes each of 49.9 tokens (about 300,000 together), 5b's 5,000 live quotes of about 1 token,
 * and 6a's orders of 249.5 tokens (about 156,000 at 1,000 flows/s): with a quarter of the devnets' 1,000,000,
 * about 710,000 in all.
 */
export const IN_FLIGHT_SHARE_BPS = 2_500n;

/** `address`'s balance of every token on every chain, read from the devnets (the balance Ferry's check reads). */
export async function readBalances(
  chains: readonly ChainInfo[],
  address: Address,
): Promise<Map<string, bigint>> {
  const balances = new Map<string, bigint>();
  for (const chain of chains) {
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    for (const token of chain.tokens) {
      const held = await client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address],
      });
      balances.set(key(chain.name, token), held);
    }
  }
  return balances;
}

const key = (chain: string, token: string) => `${chain}|${token}`;

/** Unfilled orders given to the bench LPs so far, each LP's total per chain and token held to its share. */
export class InFlightBudget {
  private readonly owed = new Map<string, bigint>();

  constructor(
    /** Each bench LP's fill address's balance per chain and token (readBalances). */
    private readonly balances: ReadonlyMap<string, bigint>,
    private readonly lpIds: ReadonlySet<string>,
  ) {}

  /**
   * Whether `lp` may owe `amount` more on (chain, token); if so, counts it. LPs outside the bench are not held to a
   * balance here (their fill addresses are not funded on the devnets, and they never quote in the bench).
   */
  take(lp: string, chain: string, token: string, amount: bigint): boolean {
    if (!this.lpIds.has(lp)) return true;
    const limit = ((this.balances.get(key(chain, token)) ?? 0n) * IN_FLIGHT_SHARE_BPS) / 10_000n;
    const owed = (this.owed.get(`${lp}|${key(chain, token)}`) ?? 0n) + amount;
    if (owed > limit) return false;
    this.owed.set(`${lp}|${key(chain, token)}`, owed);
    return true;
  }

  /** The most one bench LP owes on one chain and token, and the unfilled orders given to bench LPs. */
  summary(): { largest: bigint; total: bigint } {
    let largest = 0n;
    let total = 0n;
    for (const owed of this.owed.values()) {
      if (owed > largest) largest = owed;
      total += owed;
    }
    return { largest, total };
  }
}
