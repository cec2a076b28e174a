import { type Kysely, sql } from 'kysely';

/**
 * Webhooks. `webhook_endpoints` are an account's receivers (the signing secret is kept to sign with, never shown
 * again); a dispatcher holds an endpoint through `lease_until` while it makes one attempt, so each attempt is made by
 * one instance and one endpoint has one request in flight. `webhook_deliveries` is one event for one endpoint, with
 * its schedule; `webhook_attempts` the log of each try. `webhook_cursor` is how far the dispatchers have turned the
 * event log into deliveries: it starts at the log's end, so the events written before webhooks existed are not sent.
 */
export const webhooksMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('url', 'text', (c) => c.notNull())
      // JSON array of event types; null: every event of the account channel.
      .addColumn('events', 'text')
      .addColumn('secret', 'text', (c) => c.notNull())
      // Events with an id up to this one were written before the endpoint: never sent to it.
      .addColumn('after_event_id', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_until', 'bigint')
      .execute();
    await db.schema
      .createIndex('webhook_endpoints_account')
      .on('webhook_endpoints')
      .column('account_id')
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'text', (c) =>
        c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
      )
      .addColumn('event_id', 'bigint', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      // pending → delivered | failed; a manual retry makes it pending again.
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // Failed attempts since the delivery (or its manual retry) began: the backoff step.
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('webhook_deliveries_endpoint_event', ['endpoint_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'status', 'next_attempt_at'])
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('delivery_id', 'text', (c) =>
        c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
      )
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('attempted_at', 'bigint', (c) => c.notNull())
      // delivered | retry | failed | refused
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('next_attempt_at', 'bigint')
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
      .execute();

    await db.schema
      .createTable('webhook_cursor')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('position', 'bigint', (c) => c.notNull())
      .execute();
    await sql`insert into webhook_cursor (name, position) select 'deliveries', coalesce(max(id), 0) from events`.execute(
      db,
    );
  },
};
