import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { expect, it } from 'vitest';
import { settlementMigration } from './0002-settlement.ts';
import { chainActionTxsMigration } from './0004-chain-action-txs.ts';
import { txLedgerMigration } from './0010-tx-ledger.ts';

/**
 * Ferry's ledger migrations take their columns from ledger-columns.ts, which the LP journal shares. Their output on
 * existing databases must never change: this is the SQL they ran before the definitions were shared, byte for byte.
 */
const FROZEN = [
  'alter table "orders" add column "lease_owner" text',
  'alter table "orders" add column "lease_expires_at" bigint',
  'alter table "orders" add column "next_attempt_at" bigint default 0 not null',
  'alter table "orders" add column "attempts" integer default 0 not null',
  'create index "orders_work" on "orders" ("status", "next_attempt_at")',
  'create table "chain_actions" ("id" text primary key, "order_id" text not null references "orders" ("id"), "kind" text not null, "chain" text not null, "from_address" text not null, "nonce" bigint not null, "tx_hash" text not null, "raw_tx" text not null, "status" text not null, "created_at" bigint not null, "updated_at" bigint not null)',
  'create unique index "chain_actions_order_kind" on "chain_actions" ("order_id", "kind")',
  'create table "chain_nonces" ("chain" text not null, "address" text not null, "next_nonce" bigint not null, constraint "chain_nonces_pk" primary key ("chain", "address"))',
  'create table "chain_action_txs" ("tx_hash" text primary key, "action_id" text not null references "chain_actions" ("id"), "attempt" integer not null, "raw_tx" text not null, "max_fee_per_gas" text not null, "max_priority_fee_per_gas" text not null, "status" text not null, "created_at" bigint not null, "broadcast_at" bigint)',
  'create unique index "chain_action_txs_action_attempt" on "chain_action_txs" ("action_id", "attempt")',
  'alter table "chain_actions" add column "waiting_since" bigint',
  'alter table "chain_actions" add column "fee_capped_at" bigint',
  'select "id", "tx_hash", "raw_tx", "status", "created_at", "updated_at" from "chain_actions"',
  'alter table "chain_actions" add column "seq" integer default 0 not null',
  'drop index "chain_actions_order_kind"',
  'create unique index "chain_actions_order_kind_seq" on "chain_actions" ("order_id", "kind", "seq")',
  'create index "chain_actions_sender_open" on "chain_actions" ("status", "chain", "from_address", "nonce")',
  `alter table "chain_action_txs" add column "purpose" text default 'call' not null`,
];

/** What the three migrations send, compiled for `dialect` without a database (the select finds no rows). */
async function ledgerMigrationSql(dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  const sent: string[] = [];
  const pg = dialect === 'postgres';
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => (pg ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => (pg ? new PostgresIntrospector(k) : new SqliteIntrospector(k)),
      createQueryCompiler: () => (pg ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
    log: (event) => {
      sent.push(event.query.sql);
    },
  });
  for (const migration of [settlementMigration, chainActionTxsMigration, txLedgerMigration])
    await migration.up(db);
  return sent;
}

it.each(['sqlite', 'postgres'] as const)(
  'the ledger migrations still send the same SQL (%s)',
  async (dialect) => {
    expect(await ledgerMigrationSql(dialect)).toEqual(FROZEN);
  },
);
