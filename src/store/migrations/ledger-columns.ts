import type { ColumnDefinitionBuilderCallback, CreateTableBuilder, SchemaModule } from 'kysely';

/**
 * The transaction ledger's tables (chain_actions, chain_action_txs, chain_nonces), defined once for Ferry's
 * migrations (0002, 0004, 0010) and the LP bot's journal (lp-journal-migrations.ts), which keeps the same ledger in
 * a file of its own. Both sides are frozen: a change here would change what those migrations produced, so the SQL
 * they compile to is pinned by ledger-columns.test.ts. A new ledger column is a new migration on each side.
 */
export type LedgerColumn = readonly [
  name: string,
  type: 'text' | 'integer' | 'bigint',
  build?: ColumnDefinitionBuilderCallback,
];

const notNull: ColumnDefinitionBuilderCallback = (c) => c.notNull();

/**
 * chain_actions as 0002 created it. In Ferry's database an action's subject is an order (`orders.id`); in the
 * journal it is an order hash or an approval's token, so there is no foreign key.
 */
export const chainActionColumns = (subjectReferencesOrders: boolean): readonly LedgerColumn[] => [
  ['id', 'text', (c) => c.primaryKey()],
  ['order_id', 'text', subjectReferencesOrders ? (c) => c.notNull().references('orders.id') : notNull],
  ['kind', 'text', notNull],
  ['chain', 'text', notNull],
  ['from_address', 'text', notNull],
  ['nonce', 'bigint', notNull],
  ['tx_hash', 'text', notNull],
  ['raw_tx', 'text', notNull],
  ['status', 'text', notNull],
  ['created_at', 'bigint', notNull],
  ['updated_at', 'bigint', notNull],
];

/** Added by 0004: the replacement timer and the once-only fee cap report. */
export const actionWaitingSince: LedgerColumn = ['waiting_since', 'bigint'];
export const actionFeeCappedAt: LedgerColumn = ['fee_capped_at', 'bigint'];
/** Added by 0010: an action retried after a revert is a new row of the same subject and kind. */
export const actionSeq: LedgerColumn = ['seq', 'integer', (c) => c.notNull().defaultTo(0)];

/** chain_action_txs as 0004 created it. */
export const chainActionTxColumns: readonly LedgerColumn[] = [
  ['tx_hash', 'text', (c) => c.primaryKey()],
  ['action_id', 'text', (c) => c.notNull().references('chain_actions.id')],
  ['attempt', 'integer', notNull],
  ['raw_tx', 'text', notNull],
  ['max_fee_per_gas', 'text', notNull],
  ['max_priority_fee_per_gas', 'text', notNull],
  ['status', 'text', notNull],
  ['created_at', 'bigint', notNull],
  ['broadcast_at', 'bigint'],
];

/** Added by 0010: `cancel` marks a zero-value self-transfer spending an abandoned action's nonce. */
export const attemptPurpose: LedgerColumn = ['purpose', 'text', (c) => c.notNull().defaultTo('call')];

export function withColumns<T extends string>(
  table: CreateTableBuilder<T, never>,
  columns: readonly LedgerColumn[],
): CreateTableBuilder<T, string> {
  return columns.reduce<CreateTableBuilder<T, string>>(
    (builder, [name, type, build]) => builder.addColumn(name, type, build),
    table,
  );
}

export const chainNoncesTable = (schema: SchemaModule) =>
  withColumns(schema.createTable('chain_nonces'), [
    ['chain', 'text', notNull],
    ['address', 'text', notNull],
    ['next_nonce', 'bigint', notNull],
  ]).addPrimaryKeyConstraint('chain_nonces_pk', ['chain', 'address']);

/** One action per subject, kind and seq: the database itself refuses a second fill or settle of one try. */
export const actionSubjectKindSeqIndex = (schema: SchemaModule) =>
  schema
    .createIndex('chain_actions_order_kind_seq')
    .on('chain_actions')
    .columns(['order_id', 'kind', 'seq'])
    .unique();

/** The sender's unfinished actions, read on every pass to rebroadcast, cancel or fill nonce gaps. */
export const actionSenderOpenIndex = (schema: SchemaModule) =>
  schema
    .createIndex('chain_actions_sender_open')
    .on('chain_actions')
    .columns(['status', 'chain', 'from_address', 'nonce']);

export const attemptActionIndex = (schema: SchemaModule) =>
  schema
    .createIndex('chain_action_txs_action_attempt')
    .on('chain_action_txs')
    .columns(['action_id', 'attempt'])
    .unique();
