import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../engine/database.ts';

/** Accounts and how they authenticate: API keys, SIWE nonces, sessions. */
async function createAccountTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('accounts_address').on('accounts').columns(['address', 'type']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('siwe_nonces')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
}

/** Quote requests and the quotes on them. */
async function createQuoteTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quote_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('offerer', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('input_token', 'text', (c) => c.notNull())
    .addColumn('output_token', 'text', (c) => c.notNull())
    .addColumn('input_amount', 'text', (c) => c.notNull())
    .addColumn('input_chain', 'text', (c) => c.notNull())
    .addColumn('output_chain', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('accepted_quote_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('quote_requests_account_created')
    .on('quote_requests')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('quote_requests_status_created')
    .on('quote_requests')
    .columns(['status', 'created_at'])
    .execute();

  await db.schema
    .createTable('quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('quote_request_id', 'text', (c) => c.notNull().references('quote_requests.id'))
    .addColumn('liquidity_provider_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('order_id', 'text', (c) => c.notNull().unique())
    .addColumn('output_amount', 'text', (c) => c.notNull())
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    .addColumn('end_time', 'bigint', (c) => c.notNull())
    .addColumn('signing_hash', 'text', (c) => c.notNull().unique())
    .addColumn('typed_data', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('quotes_request')
    .on('quotes')
    .columns(['quote_request_id', 'status'])
    .execute();
  await db.schema
    .createIndex('quotes_lp')
    .on('quotes')
    .columns(['liquidity_provider_id', 'created_at'])
    .execute();
  await db.schema.createIndex('quotes_created').on('quotes').column('created_at').execute();
  // One active quote per liquidity provider per request, enforced by the database.
  await db.schema
    .createIndex('quotes_one_active_per_lp')
    .on('quotes')
    .columns(['quote_request_id', 'liquidity_provider_id'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();
}

/** Orders, the event log and idempotency keys. */
async function createOrderTables(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('quote_id', 'text', (c) => c.notNull().unique().references('quotes.id'))
    .addColumn('quote_request_id', 'text', (c) => c.notNull())
    .addColumn('blockchain_order_id', 'text', (c) => c.notNull().unique())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('money_mover_account_id', 'text', (c) => c.notNull())
    .addColumn('liquidity_provider_account_id', 'text', (c) => c.notNull())
    .addColumn('offerer', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('input_token', 'text', (c) => c.notNull())
    .addColumn('output_token', 'text', (c) => c.notNull())
    .addColumn('input_amount', 'text', (c) => c.notNull())
    .addColumn('output_amount', 'text', (c) => c.notNull())
    .addColumn('input_chain', 'text', (c) => c.notNull())
    .addColumn('output_chain', 'text', (c) => c.notNull())
    .addColumn('src_chain_tx_hash', 'text')
    .addColumn('dst_chain_tx_hash', 'text')
    .addColumn('settlement_tx_hash', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('orders_mm')
    .on('orders')
    .columns(['money_mover_account_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('orders_lp')
    .on('orders')
    .columns(['liquidity_provider_account_id', 'created_at'])
    .execute();
  await db.schema.createIndex('orders_created').on('orders').column('created_at').execute();
  await db.schema.createIndex('orders_offerer').on('orders').columns(['offerer', 'created_at']).execute();
  await db.schema.createIndex('orders_recipient').on('orders').columns(['recipient', 'created_at']).execute();
  await db.schema.createIndex('orders_status').on('orders').columns(['status', 'updated_at']).execute();

  // The event id must only grow: SQLite's AUTOINCREMENT never reuses ids, PostgreSQL uses an identity column.
  await db.schema
    .createTable('events')
    .addColumn('id', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('account_ids', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();
}

/** The first schema. Portable types only, so SQLite and PostgreSQL run the very same migration. */
export function initialMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await createAccountTables(db);
      await createQuoteTables(db);
      await createOrderTables(db, dialect);
    },
  };
}
