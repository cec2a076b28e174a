import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

type TransactionWork<T> = (trx: Transaction<Database>) => Promise<T>;

interface Job {
  readonly work: TransactionWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

const SAVEPOINT = CompiledQuery.raw('savepoint ferry_job');
const RELEASE = CompiledQuery.raw('release ferry_job');
const ROLLBACK_TO = CompiledQuery.raw('rollback to ferry_job');

/**
 * Group commit for SQLite. A commit costs more than the inserts it seals (each one writes every page it touched
 * to the WAL again: bench/README.md), and SQLite has one writer anyway. So transactions that arrive in the same
 * turn of the event loop run one after another inside one database transaction, each in its own savepoint,
 * and share one commit:
 * - a unit of work that throws is rolled back to its savepoint and gets its own error; the others still commit;
 * - if the commit fails, every unit of the batch gets that error and none of them is written;
 * - each caller's promise settles only after the commit, so nobody acts on a write that could still vanish.
 * A unit of work must not wait on anything outside the database (RPC, another transaction): the batch waits on it.
 */
export function createGroupCommit(db: Kysely<Database>, maxBatch = 256) {
  let queue: Job[] = [];
  let scheduled = false;
  let running = false;

  const schedule = () => {
    if (scheduled || running) return;
    scheduled = true;
    setImmediate(flush);
  };

  async function runBatch(jobs: readonly Job[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    await db.transaction().execute(async (trx) => {
      for (const job of jobs) {
        await trx.executeQuery(SAVEPOINT);
        try {
          outcomes.push({ ok: true, value: await job.work(trx) });
        } catch (error) {
          // Some errors end the whole transaction in SQLite (disk full, I/O): then the savepoint is gone too,
          // and the batch fails with the unit's own error, the informative one, rather than the rollback's.
          await trx.executeQuery(ROLLBACK_TO).catch(() => {
            throw error;
          });
          outcomes.push({ ok: false, error });
        }
        await trx.executeQuery(RELEASE);
      }
    });
    return outcomes;
  }

  async function flush(): Promise<void> {
    scheduled = false;
    running = true;
    const jobs = queue.slice(0, maxBatch);
    queue = queue.slice(jobs.length);
    try {
      const outcomes = await runBatch(jobs);
      jobs.forEach((job, i) => {
        const outcome = outcomes[i] as Outcome;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    } catch (error) {
      for (const job of jobs) job.reject(error);
    } finally {
      running = false;
      if (queue.length > 0) schedule();
    }
  }

  return {
    /** Runs `work` in a transaction shared with the other work of this turn; settles after the commit. */
    run<T>(work: TransactionWork<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
  };
}
