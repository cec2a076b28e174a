import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChainClients } from '../chains/settlement/lp-chain-clients.ts';
import { ANVIL_KEYS } from '../devnet/devnet.ts';
import { openLpJournal } from '../store/ledgers/lp-journal.ts';
import type { ChainInfo, FerryApi, OpenOrder, OrderView } from './ferry-api.ts';
import type { BotLog } from './lp-bot-log.ts';
import { adoptedQuoteId, fillOpenOrders } from './lp-open-fills.ts';

const wallet = privateKeyToAccount(ANVIL_KEYS[4]);
const TOKEN = '0x00000000000000000000000000000000000000aa';
const OTHER_LP = '0x00000000000000000000000000000000000000b1';
const EXCLUSIVE_UNTIL = 1_800_000_000;
const chain = (name: string, chainId: number) =>
  ({ name, chainId, tokens: [{ address: TOKEN, decimals: 6, symbol: 'USDC' }] }) as unknown as ChainInfo;

/** An order another LP was quoted for, listed as GET /api/v1/open-orders lists it. */
function openOrder(id: string, over: { outputAmount?: string; offerer?: string } = {}): OpenOrder {
  const order = {
    id,
    status: 'deposited',
    blockchainOrderId: `0x${id.padStart(64, '0')}`,
    offerer: over.offerer ?? '0x00000000000000000000000000000000000000c1',
    recipient: '0x00000000000000000000000000000000000000c2',
    inputToken: TOKEN,
    outputToken: TOKEN,
    inputAmount: '1000000',
    outputAmount: over.outputAmount ?? '997000',
    inputChain: 'a',
    outputChain: 'b',
    filler: OTHER_LP,
    fillDeadline: String(EXCLUSIVE_UNTIL + 3600),
    exclusivityDeadline: String(EXCLUSIVE_UNTIL),
    protocolFee: '0',
  };
  const typedData = { message: { exclusivityDeadline: String(EXCLUSIVE_UNTIL) } };
  return { order, typedData } as unknown as OpenOrder;
}

/**
 * The bot's choice of open orders: its journal is real (SQLite); the output chain is a stand-in answering the latest
 * block's time and the wallet's balance; Ferry answers the open-order list.
 */
describe('LP bot: which open orders it takes on', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-lp-open-')), 'journal.sqlite');
  const journal = openLpJournal(file);
  afterAll(() => journal.close());
  const nullLog = { debug() {}, info() {}, warn() {}, error() {} } as unknown as BotLog;
  const overpriced = new Set<string>();

  async function pass(listed: OpenOrder[], chainNow: number, balance: bigint) {
    const filled: OrderView[] = [];
    const failures: string[] = [];
    const clients = {
      public: {
        getBlock: async () => ({ timestamp: BigInt(chainNow) }),
        readContract: async () => balance,
      },
    } as unknown as ChainClients;
    await fillOpenOrders(
      {
        api: { openOrders: async () => listed } as unknown as FerryApi,
        account: wallet,
        journal,
        spreadBps: 30,
        offererShareMillionths: 500_000n,
        log: nullLog,
        chain: async (name) => (name === 'a' ? chain('a', 1) : chain('b', 2)),
        clientsFor: () => clients,
        settledOrders: new Set<Hex>(),
        overpriced,
        fillOne: async (view) => {
          filled.push(view);
        },
      },
      (subject, error) => failures.push(`${subject}: ${String(error)}`),
    );
    expect(failures).toEqual([]);
    return filled;
  }

  it('never inside another LP’s exclusivity, the last second included', async () => {
    expect(await pass([openOrder('1')], EXCLUSIVE_UNTIL, 10_000_000n)).toEqual([]);
    expect(await journal.findQuote(adoptedQuoteId('1'))).toBeNull();
  });

  it('only what its own spread prices at or above the order’s output', async () => {
    // 30 bps of 1,000,000 leaves 997,000: an order paying out more is left to others.
    expect(
      await pass([openOrder('2', { outputAmount: '997001' })], EXCLUSIVE_UNTIL + 1, 10_000_000n),
    ).toEqual([]);
    expect(await journal.findQuote(adoptedQuoteId('2'))).toBeNull();
    // Its terms never change: it is not looked at again.
    expect(overpriced.has('2')).toBe(true);
  });

  it('only what its wallet covers beyond its promises, and within one offerer’s share', async () => {
    // 997,000 is more than half of 1,500,000: the offerer's share (0.5) holds it back although the wallet covers it.
    expect(await pass([openOrder('3')], EXCLUSIVE_UNTIL + 1, 1_500_000n)).toEqual([]);
    expect(await pass([openOrder('3')], EXCLUSIVE_UNTIL + 1, 900_000n)).toEqual([]);
    expect(await journal.findQuote(adoptedQuoteId('3'))).toBeNull();
  });

  it('takes it on as an accepted quote of its own, then hands it to the filler, again on the next pass', async () => {
    const listed = [openOrder('4')];
    const filled = await pass(listed, EXCLUSIVE_UNTIL + 1, 10_000_000n);
    expect(filled.map((v) => [v.orderId, v.quoteId, v.details.filler])).toEqual([
      ['4', adoptedQuoteId('4'), OTHER_LP],
    ]);
    expect(await journal.findQuote(adoptedQuoteId('4'))).toMatchObject({
      status: 'ordered',
      outputAmount: 997_000n,
      spreadBps: 30,
      reservedUntil: (EXCLUSIVE_UNTIL + 3600) * 1000,
    });
    // Adopted: its output is promised now, and the next pass goes straight to the filler, whatever the balance.
    expect(await journal.reserved('b', TOKEN, Date.now())).toBe(997_000n);
    expect((await pass(listed, EXCLUSIVE_UNTIL + 2, 0n)).map((v) => v.orderId)).toEqual(['4']);
  });
});
