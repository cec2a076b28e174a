import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { type Executor, isPostgres } from './db-types.ts';
import type { Database } from './schema.ts';
import { StoreError } from './store-errors.ts';

/** Stands in for a named parameter while the query is built; replaced by the caller's value at each call. */
class Slot {
  constructor(readonly name: string) {}
}

/** The parameters as the builder sees them: each one typed as the value it stands for. */
export type Slots<P> = { readonly [K in keyof P]: P[K] };

export type RunCompiled<P, R> = ((db: Executor, params: P) => Promise<QueryResult<R>>) & {
  /** The query with `params` bound, not run: for a caller that sends it as part of a larger statement. */
  readonly bound: (db: Executor, params: P) => CompiledQuery<R>;
};

/**
 * A query that Kysely builds and compiles once per dialect; each call only binds its parameters. Building and
 * compiling cost about 30 µs a query, five times the SQLite lookup itself (bench/README.md), so the hot paths of
 * the API use this. The shape must be fixed: a builder that branches on a parameter's value, or spreads a list
 * into `in (…)`, cannot be compiled ahead and stays an ordinary Kysely query. Name every column of an insert:
 * the slots object has no keys to spread.
 */
export function compiledQuery<P extends object, R>(
  build: (db: Kysely<Database>, p: Slots<P>) => Compilable<R>,
): RunCompiled<P, R> {
  const slots = new Proxy({} as Slots<P>, { get: (_, name) => new Slot(String(name)) });
  const templates = new Map<'sqlite' | 'postgres', CompiledQuery<R>>();
  const bound = (db: Executor, params: P): CompiledQuery<R> => {
    const dialect = isPostgres(db) ? 'postgres' : 'sqlite';
    let template = templates.get(dialect);
    if (!template) {
      template = build(db as Kysely<Database>, slots).compile();
      templates.set(dialect, template);
    }
    const parameters = template.parameters.map((value) => {
      if (!(value instanceof Slot)) return value;
      const bound = (params as Record<string, unknown>)[value.name];
      if (bound === undefined) throw new StoreError(`compiled query: parameter "${value.name}" is missing`);
      return bound;
    });
    return { ...template, parameters };
  };
  const run = async (db: Executor, params: P) => db.executeQuery(bound(db, params));
  return Object.assign(run, { bound });
}
