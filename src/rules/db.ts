import type { Kysely, Migration } from 'kysely';

/** A recording rule: when a channel matching `cname_pattern` gets its first publisher, record it. */
export interface RecordingRuleRow {
  rule_id: string;
  app_id: string;
  /** The customer who created it: its credentials start the recordings. */
  customer_id: string;
  cname_pattern: string;
  mode: string;
  /** The recording uid; null: a random free one per recording. */
  uid: string | null;
  /** acquire's clientRequest.scene. */
  scene: number;
  /** start's clientRequest, sealed (it holds storage secrets), as storage settings are. */
  client_request_sealed: string;
  created_ms: number;
}

/** The recording a rule made of one channel: the latest one; one row per rule and channel, so never two at once. */
export interface RecordingRuleRunRow {
  rule_id: string;
  cname: string;
  /** `starting` while one process acquires and starts (claimed until `claimed_until`), then `recording`, or `failed`. */
  state: string;
  resource_id: string | null;
  sid: string | null;
  uid: string | null;
  claimed_until: number | null;
  updated_ms: number;
  error: string | null;
}

/** Tables of the rules module, prefixed "rules_". */
export interface RulesTables {
  rules_recording_rules: RecordingRuleRow;
  rules_recording_runs: RecordingRuleRunRow;
}

export const rulesMigrations: Record<string, Migration> = {
  'rules-0001-recording-rules': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('rules_recording_rules')
        .addColumn('rule_id', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('cname_pattern', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('uid', 'text')
        .addColumn('scene', 'integer', (c) => c.notNull())
        .addColumn('client_request_sealed', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rules_recording_rules_app').on('rules_recording_rules').column('app_id').execute();
      await db.schema
        .createTable('rules_recording_runs')
        .addColumn('rule_id', 'text', (c) => c.notNull())
        .addColumn('cname', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('resource_id', 'text')
        .addColumn('sid', 'text')
        .addColumn('uid', 'text')
        .addColumn('claimed_until', 'bigint')
        .addColumn('updated_ms', 'bigint', (c) => c.notNull())
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('rules_recording_runs_pk', ['rule_id', 'cname'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('rules_recording_runs').execute();
      await db.schema.dropTable('rules_recording_rules').execute();
    },
  },
};
