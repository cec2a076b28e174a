import type { Kysely } from 'kysely';

/**
 * Visible settlement. On `orders`, the message that proves the order's fill to its escrow: how (`layerzero` or
 * `attester`), its id (the LayerZero guid, or the attestation's EIP-712 digest), where it stands (`sent`,
 * `verified`, `delivered`), the transaction that sent it and when; and, on attester chains, the attestation handed
 * to the filler (JSON). `proof_sent` / `proof_delivered` hold FerryApp's ProofSent (one row per order hash in the
 * message) and ProofDelivered events, read by the fill index's log scans (only blocks at confirmations depth).
 */
export const settlementMessagesMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('orders').addColumn('settlement_method', 'text').execute();
    for (const column of [
      'settlement_message_id',
      'settlement_status',
      'settlement_message_tx',
      'fill_attestation',
    ]) {
      await db.schema.alterTable('orders').addColumn(column, 'text').execute();
    }
    for (const column of ['settlement_sent_at', 'settlement_delivered_at']) {
      await db.schema.alterTable('orders').addColumn(column, 'bigint').execute();
    }

    await db.schema
      .createTable('proof_sent')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull())
      .addColumn('log_index', 'integer', (c) => c.notNull())
      .addColumn('order_hash', 'text', (c) => c.notNull())
      .addColumn('guid', 'text', (c) => c.notNull())
      .addColumn('dst_eid', 'bigint', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_timestamp', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('proof_sent_pk', ['chain', 'tx_hash', 'log_index', 'order_hash'])
      .execute();
    await db.schema
      .createIndex('proof_sent_order')
      .on('proof_sent')
      .columns(['chain', 'order_hash'])
      .execute();

    await db.schema
      .createTable('proof_delivered')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull())
      .addColumn('log_index', 'integer', (c) => c.notNull())
      .addColumn('guid', 'text', (c) => c.notNull())
      .addColumn('src_eid', 'bigint', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_timestamp', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('proof_delivered_pk', ['chain', 'tx_hash', 'log_index'])
      .execute();
    await db.schema
      .createIndex('proof_delivered_guid')
      .on('proof_delivered')
      .columns(['chain', 'guid'])
      .execute();
  },
};
