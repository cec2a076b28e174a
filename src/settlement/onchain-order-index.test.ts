import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/test-database.ts';
import type { Chain, ChainRegistry } from '../chains/chain-registry.ts';
import type { OnchainOpen } from '../domain/onchain-order.ts';
import { buildOrderTypedData, hashOrderTypedData, type OrderTerms } from '../domain/order-typed-data.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { recordOnchainOpens } from './onchain-order-index.ts';

const backend = process.env.FERRY_TEST_PG ? 'PostgreSQL' : 'SQLite';
const ESCROW = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const USDC_A = '0x1111111111111111111111111111111111111111';
const USDC_B = '0x2222222222222222222222222222222222222222';
const ZERO = '0x0000000000000000000000000000000000000000';

/** Two served chains with one token each: the registry the worker reads opens against. */
const chains = [
  { name: 'devnet-a', chainId: 31337, token: USDC_A, fill: '0x000000000000000000000000000000000000f111' },
  { name: 'devnet-b', chainId: 31338, token: USDC_B, fill: '0x000000000000000000000000000000000000f222' },
].map(({ name, chainId, token, fill }) => ({
  name,
  chainId,
  settlement: { method: 'layerzero' },
  contracts: { escrow: ESCROW, fill, messenger: null },
  tokens: [{ address: token, symbol: 'USDC', decimals: 6, minAmount: 1_000_000n }],
}));
const registry = {
  chains: chains as unknown as Chain[],
  chain: (name: string) => chains.find((c) => c.name === name) as unknown as Chain | undefined,
  token: (chain: string, address: string) =>
    chains
      .find((c) => c.name === chain)
      ?.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase()),
} as unknown as ChainRegistry;

let nonce = 0n;
function openOf(overrides: Partial<OrderTerms> = {}, orderHash?: `0x${string}`): OnchainOpen {
  const terms: OrderTerms = {
    offerer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    recipient: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    inputToken: USDC_A,
    outputToken: USDC_B,
    inputAmount: 2_000_000n,
    outputAmount: 1_990_000n,
    inputChainId: 31337n,
    outputChainId: 31338n,
    filler: ZERO,
    nonce: ++nonce,
    openDeadline: 2_000_000_000n,
    fillDeadline: 2_000_001_800n,
    protocolFee: 0n,
    exclusivityDeadline: 0n,
    ...overrides,
  };
  const hash = orderHash ?? hashOrderTypedData(buildOrderTypedData(terms, ESCROW));
  return {
    chain: 'devnet-a',
    escrow: ESCROW,
    orderHash: hash,
    terms,
    txHash: `0x${'ab'.repeat(32)}`,
    blockNumber: 7n,
    logIndex: 0,
  };
}

/** The worker's writes for the Open events of one scanned range (real database, one unit of work per range). */
describe(`orders opened on chain, written from their Open events on ${backend}`, () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  const lines: { msg: string; reason?: string }[] = [];
  const log = { info: (obj: { reason?: string }, msg: string) => lines.push({ msg, reason: obj.reason }) };
  const now = new Date('2026-11-27T12:00:00.000Z');
  const record = (opens: OnchainOpen[]) =>
    database.transaction((trx, uow) =>
      recordOnchainOpens({ registry, log: log as unknown as FastifyBaseLogger }, trx, uow, opens, now),
    );
  const ordersOf = (hash: string) =>
    database.db.selectFrom('orders').selectAll().where('blockchain_order_id', '=', hash).execute();
  const eventsOf = async (id: string) =>
    (await database.db.selectFrom('events').select(['type', 'data']).orderBy('id').execute())
      .filter((e) => JSON.parse(e.data).id === id)
      .map((e) => e.type);

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(async () => {
    await close?.();
  });

  it('writes an order open to any filler as deposited, `onchain`, announced open, with the terms as typed data', async () => {
    const open = openOf();
    await record([open]);
    const [row] = await ordersOf(open.orderHash);
    expect(row).toMatchObject({
      status: 'deposited',
      source: 'onchain',
      src_chain_tx_hash: open.txHash,
      money_mover_account_id: 'acc_onchain',
      input_chain: 'devnet-a',
      output_chain: 'devnet-b',
      filler: ZERO,
    });
    expect(row!.exclusivity_lapsed_at).toBe(now.getTime());
    const quote = await database.db
      .selectFrom('quotes')
      .selectAll()
      .where('id', '=', row!.quote_id)
      .executeTakeFirstOrThrow();
    expect(quote.signing_hash).toBe(open.orderHash);
    expect(hashOrderTypedData(JSON.parse(quote.typed_data))).toBe(open.orderHash);
    expect(await eventsOf(row!.id)).toEqual(['order.created', 'order.exclusivityLapsed']);

    // The same Open read again (a rescan after a reorg): nothing written twice.
    await record([open]);
    expect(await ordersOf(open.orderHash)).toHaveLength(1);
  });

  it('an order naming a filler is that filler’s until its exclusivity lapses: not announced yet', async () => {
    const open = openOf({
      filler: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
      exclusivityDeadline: 2_000_000_060n,
    });
    await record([open]);
    const [row] = await ordersOf(open.orderHash);
    expect(row!.exclusivity_lapsed_at).toBeNull();
    expect(await eventsOf(row!.id)).toEqual(['order.created']);
  });

  it('leaves alone, with the reason logged, what it could not settle', async () => {
    const cases: [OnchainOpen, string][] = [
      [openOf({ outputToken: '0x3333333333333333333333333333333333333333' }), 'output token'],
      [openOf({ outputChainId: 1n }), 'output chain 1 is not served'],
      [openOf({ outputChainId: 31337n }), 'output chain 31337 is not served'],
      [openOf({}, `0x${'12'.repeat(32)}`), 'its orderId is not the hash of its terms'],
      // The API's own rules: no dust, no payout to a contract of Ferry's.
      [openOf({ inputAmount: 999_999n }), 'input 999999 is below the minimum swap (1000000)'],
      [openOf({ recipient: USDC_B }), 'the recipient is the USDC token contract on devnet-b'],
    ];
    for (const [open, reason] of cases) {
      lines.length = 0;
      await record([open]);
      expect(await ordersOf(open.orderHash)).toEqual([]);
      expect(lines).toEqual([
        { msg: 'order opened on chain not followed', reason: expect.stringContaining(reason) },
      ]);
    }
  });
});
