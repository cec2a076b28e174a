import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { ChainFill } from '../../domain/chain-fill.ts';
import type { FerryDatabase } from '../engine/database.ts';
import {
  deleteChainFillsFrom,
  findChainFill,
  insertChainFills,
  insertProofLogs,
  moveLogCursor,
  readLogCursor,
  undeliveredProofMessages,
} from './log-scan-store.ts';

const key = { chain: 'chain-x', scope: 'fill:0xabc' };
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

function fill(
  n: number,
  blockNumber: bigint,
  filler = '0x00000000000000000000000000000000000000F1',
): ChainFill {
  return {
    chain: key.chain,
    txHash: hash(1000 + n),
    logIndex: 0,
    orderHash: hash(7),
    filler: filler as `0x${string}`,
    recipient: '0x00000000000000000000000000000000000000b2',
    token: '0x00000000000000000000000000000000000000c3',
    amount: 2n ** 200n + BigInt(n),
    blockNumber,
    blockHash: hash(blockNumber === 10n ? 10 : 11),
    blockTimestamp: 1_800_000_000 + n,
  };
}

describe('log scan store', () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(() => close());

  it('moves a cursor only from the position the caller read (compare-and-set), creating it once', async () => {
    expect(await readLogCursor(database.db, key.chain, key.scope)).toBeNull();
    const first = { nextBlock: 101n, lastBlockHash: hash(100) };
    expect(await moveLogCursor(database.db, key, null, first, 1)).toBe(true);
    // A second creator (another worker that also saw no cursor) loses, and changes nothing.
    expect(await moveLogCursor(database.db, key, null, { nextBlock: 500n, lastBlockHash: null }, 2)).toBe(
      false,
    );
    const second = { nextBlock: 201n, lastBlockHash: hash(200) };
    expect(await moveLogCursor(database.db, key, first, second, 3)).toBe(true);
    // A worker that still holds the old position loses too.
    expect(await moveLogCursor(database.db, key, first, { nextBlock: 301n, lastBlockHash: null }, 4)).toBe(
      false,
    );
    expect(await readLogCursor(database.db, key.chain, key.scope)).toEqual(second);
    expect(await readLogCursor(database.db, key.chain, 'fill:0xother')).toBeNull();
  });

  it('stores fills once, answers the earliest by order hash in any case, whoever filled, and forgets reorged blocks', async () => {
    // Two fillers' logs for one order (a reorged fill replaced by another's): the earliest is the filler of record.
    await insertChainFills(database.db, [
      fill(1, 11n),
      fill(2, 10n, '0x00000000000000000000000000000000000000F9'),
    ]);
    // The same logs read again (a range re-read after a lost race) are not stored twice.
    await insertChainFills(database.db, [fill(1, 11n)]);
    const found = await findChainFill(database.db, key.chain, hash(7).toUpperCase().replace('0X', '0x'));
    expect(found).toMatchObject({
      txHash: hash(1002),
      filler: '0x00000000000000000000000000000000000000f9',
      blockNumber: 10n,
      amount: 2n ** 200n + 2n,
      blockTimestamp: 1_800_000_002,
    });
    expect(await findChainFill(database.db, key.chain, hash(8))).toBeNull();
    expect(await findChainFill(database.db, 'chain-y', hash(7))).toBeNull();

    await deleteChainFillsFrom(database.db, key.chain, 10n);
    expect(await findChainFill(database.db, key.chain, hash(7))).toBeNull();
  });

  it("lists a path's undelivered proof messages, whoever's orders they prove, newest first", async () => {
    const sent = (n: number, block: bigint, dstEid = 30_001, orderHashes = [hash(500 + n)]) => ({
      chain: 'out',
      txHash: hash(600 + n),
      logIndex: 1,
      guid: hash(700 + n),
      dstEid,
      orderHashes,
      blockNumber: block,
      blockTimestamp: 1_800_000_000 + n,
    });
    const delivered = {
      chain: 'in',
      txHash: hash(800),
      logIndex: 0,
      guid: hash(702),
      srcEid: 30_002,
      blockNumber: 5n,
      blockTimestamp: 1_800_000_100,
    };
    await insertProofLogs(
      database.db,
      // One message proving two orders is listed once; another path's message and a delivered one not at all.
      [
        sent(1, 10n, 30_001, [hash(501), hash(511)]),
        sent(2, 11n),
        sent(3, 12n, 30_009),
        sent(4, 13n),
        sent(5, 20n),
      ],
      [delivered],
    );
    const route = { outputChain: 'out', inputChain: 'in', dstEid: 30_001 };
    expect(await undeliveredProofMessages(database.db, route, 13, 10)).toEqual([
      { guid: hash(704), txHash: hash(604) },
      { guid: hash(701), txHash: hash(601) },
    ]);
    expect(await undeliveredProofMessages(database.db, route, 20, 1)).toEqual([
      { guid: hash(705), txHash: hash(605) },
    ]);
  });
});
