import type { FastifyBaseLogger } from 'fastify';
import type { Chain, ChainRegistry } from '../chains/chain-registry.ts';
import { LogRangeTooLargeError } from '../chains/log-range-error.ts';
import type { FillLogSource, FillRange } from '../chains/settlement/fill-log-source.ts';
import type { LogCursor } from '../domain/chain-fill.ts';
import type { Clock } from '../domain/clock.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import {
  deleteChainFillsFrom,
  insertChainFills,
  insertProofLogs,
  moveLogCursor,
  readLogCursor,
} from '../store/tables/log-scan-store.ts';
import { recordOnchainOpens } from './onchain-order-index.ts';

/** Ranges read per chain per call, so one pass over a long-idle chain does not hold up settlement for long. */
const MAX_RANGES_PER_CALL = 20;
/** After this many accepted ranges in a row, a range halved by the RPC grows back by a quarter. */
const GROW_AFTER = 4;
/** How far back a scan restarts when the last block it read has left the chain. */
const REWIND_BLOCKS = 64n;

/** The cursor scope of a chain's fill contract: a new contract address gets a scan of its own. */
export const fillScope = (chain: Chain) => `fill:${chain.contracts.fill.toLowerCase()}`;

/**
 * Each chain's index of Filled events, and of FerryApp's ProofSent / ProofDelivered, read at the chain's
 * confirmations depth (chain_fills, proof_sent, proof_delivered and their one cursor), and of the escrow's Open
 * events of orders wallets opened on chain (onchain-order-index.ts).
 */
export interface FillIndexer {
  /**
   * The last block whose fills are all in the index (null before the first range): fills in later blocks may
   * exist unseen, so nothing may be concluded from their absence there.
   */
  indexedThrough(chainName: string): Promise<bigint | null>;
  /**
   * Brings every chain's fill index up to its confirmed head (or MAX_RANGES_PER_CALL ranges further). A chain
   * whose RPC fails is logged and skipped: the others still advance, and the next call retries it.
   */
  catchUp(): Promise<void>;
}

/**
 * Reads the Filled events of every registry chain's fill contract into the database: from the chain's
 * `startBlock`, in ranges of at most `maxLogRange` blocks (halved while the RPC refuses a range as too large),
 * and only up to the block at the chain's confirmations depth, so a fill that a shallow reorg can still remove is
 * never stored. Each range's fills and the cursor move in one transaction: a restart resumes at the cursor.
 */
export function createFillIndexer(deps: {
  database: FerryDatabase;
  registry: ChainRegistry;
  source: FillLogSource;
  clock: Clock;
  log: FastifyBaseLogger;
}): FillIndexer {
  const { database, registry, source, clock, log } = deps;
  const ranges = new Map<string, { size: number; accepted: number }>();
  const failing = new Set<string>();

  function rangeOf(chain: Chain) {
    const range = ranges.get(chain.name) ?? { size: chain.maxLogRange, accepted: 0 };
    ranges.set(chain.name, range);
    return range;
  }

  /** Stores one range; false when another worker moved the cursor first (the caller reads it again). */
  async function commit(chain: Chain, from: LogCursor | null, to: LogCursor, read: FillRange) {
    return database.transaction(async (trx, uow) => {
      const key = { chain: chain.name, scope: fillScope(chain) };
      if (!(await moveLogCursor(trx, key, from, to, clock.now().getTime()))) return false;
      await insertChainFills(trx, read.fills);
      await recordOnchainOpens({ registry, log }, trx, uow, read.opens, clock.now());
      return insertProofLogs(trx, read.proofsSent, read.proofsDelivered).then(() => true);
    });
  }

  async function rewind(chain: Chain, cursor: LogCursor) {
    const back = cursor.nextBlock - REWIND_BLOCKS;
    const to = back > chain.startBlock ? back : chain.startBlock;
    log.warn(
      { chain: chain.name, from: String(cursor.nextBlock), to: String(to) },
      'a block already scanned left the chain (reorg deeper than the confirmations); rescanning',
    );
    const key = { chain: chain.name, scope: fillScope(chain) };
    await database.transaction(async (trx) => {
      if (
        !(await moveLogCursor(
          trx,
          key,
          cursor,
          { nextBlock: to, lastBlockHash: null },
          clock.now().getTime(),
        ))
      )
        return;
      await deleteChainFillsFrom(trx, chain.name, to);
    });
  }

  async function catchUpChain(chain: Chain): Promise<void> {
    const head = await source.head(chain.name);
    // The last block at the confirmations depth: with 1 confirmation that is the head itself.
    const safe = head + 1n - BigInt(Math.max(1, chain.confirmations));
    const range = rangeOf(chain);
    let stored = await readLogCursor(database.db, chain.name, fillScope(chain));
    for (let i = 0; i < MAX_RANGES_PER_CALL; i++) {
      const next = stored?.nextBlock ?? chain.startBlock;
      if (next > safe) return;
      const last = next + BigInt(range.size) - 1n;
      const toBlock = last < safe ? last : safe;
      let read: FillRange;
      try {
        read = await source.fills(chain.name, next, toBlock);
      } catch (error) {
        if (!(error instanceof LogRangeTooLargeError) || range.size === 1) throw error;
        range.size = Math.max(1, Math.floor(range.size / 2));
        range.accepted = 0;
        log.debug({ chain: chain.name, range: range.size }, 'log range refused; halved');
        continue;
      }
      if (++range.accepted >= GROW_AFTER && range.size < chain.maxLogRange) {
        range.size = Math.min(chain.maxLogRange, Math.ceil(range.size * 1.25));
        range.accepted = 0;
      }
      if (stored?.lastBlockHash && read.fromParentHash.toLowerCase() !== stored.lastBlockHash.toLowerCase()) {
        await rewind(chain, stored);
        stored = await readLogCursor(database.db, chain.name, fillScope(chain));
        continue;
      }
      await commit(chain, stored, { nextBlock: toBlock + 1n, lastBlockHash: read.toHash }, read);
      stored = await readLogCursor(database.db, chain.name, fillScope(chain));
    }
  }

  return {
    async indexedThrough(chainName: string): Promise<bigint | null> {
      const chain = registry.chain(chainName);
      if (!chain) return null;
      const cursor = await readLogCursor(database.db, chain.name, fillScope(chain));
      return cursor ? cursor.nextBlock - 1n : null;
    },

    async catchUp(): Promise<void> {
      await Promise.all(
        registry.chains.map(async (chain) => {
          try {
            await catchUpChain(chain);
            if (failing.delete(chain.name)) log.info({ chain: chain.name }, 'fill log scan recovered');
          } catch (error) {
            // viem's full message names the RPC URL, which may carry a key: log its short form only. Once per
            // outage: the worker retries every pass.
            const { shortMessage, details, message } = error as {
              shortMessage?: string;
              details?: string;
              message?: string;
            };
            const reason = shortMessage ? `${shortMessage}${details ? ` ${details}` : ''}` : message;
            const level = failing.has(chain.name) ? 'debug' : 'warn';
            failing.add(chain.name);
            log[level]({ chain: chain.name, reason }, 'fill log scan failed; will retry');
          }
        }),
      );
    },
  };
}
