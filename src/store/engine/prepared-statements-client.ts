import { createHash } from 'node:crypto';
import pg from 'pg';

/** Named statements one connection keeps at most; past it, new texts go unnamed (parsed each time, as before). */
const MAX_NAMED_PER_CONNECTION = 1000;

/** PostgreSQL's answer when a prepared statement's result columns changed under it (a migration ran meanwhile). */
const RESULT_TYPE_CHANGED = '0A000';

/**
 * A pg client that sends every parameterised query as a named prepared statement. node-postgres sends them unnamed,
 * and PostgreSQL then parses and plans each one on every call: for the swap path's reads, 0.67 ms a transaction
 * against 0.24 ms prepared (pgbench, one client, docs/deployment.md). On a machine where PostgreSQL and Ferry share
 * the cores that is most of the database's CPU per request. A statement is prepared once per connection, named by
 * a hash of its text.
 *
 * A migration run by another instance can change a table's columns under a prepared `select *`; PostgreSQL then
 * refuses it ("cached plan must not change result type"). The client then names that text afresh, so the next call
 * prepares it again, and retries the call at once when it ran outside a transaction (inside one the transaction is
 * already failed, and its caller gets the error).
 */
export class PreparedStatementsClient extends pg.Client {
  readonly #names = new Map<string, string>();
  #generation = 0;

  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this one forwards them all.
  override query(...args: any[]): any {
    const [text, values, callback] = args;
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || callback !== undefined) {
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const name = this.#nameOf(text);
    if (name === null) return super.query(text, values);
    return super.query({ text, values, name }).catch((error: unknown) => {
      if ((error as { code?: string }).code !== RESULT_TYPE_CHANGED) throw error;
      this.#names.delete(text);
      this.#generation++;
      if (this.getTransactionStatus() !== 'I') throw error;
      const renamed = this.#nameOf(text);
      return renamed === null ? super.query(text, values) : super.query({ text, values, name: renamed });
    });
  }

  #nameOf(text: string): string | null {
    const known = this.#names.get(text);
    if (known !== undefined) return known;
    if (this.#names.size >= MAX_NAMED_PER_CONNECTION) return null;
    const name = `ferry_${createHash('sha1').update(text).digest('hex').slice(0, 20)}_${this.#generation}`;
    this.#names.set(text, name);
    return name;
  }
}
