import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { RecordingRuleRow, RecordingRuleRunRow } from './db.ts';

export type RuleRow = RecordingRuleRow;
export type RunRow = RecordingRuleRunRow;

/** Rules and their runs on SQLite or PostgreSQL. A run row is claimed by a conditional write, so one process wins. */
export class RuleStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: RuleRow): Promise<void> {
    await this.db.insertInto('rules_recording_rules').values(row).execute();
  }

  async list(appId: string): Promise<RuleRow[]> {
    return this.db.selectFrom('rules_recording_rules').selectAll().where('app_id', '=', appId).orderBy('created_ms').orderBy('rule_id').execute();
  }

  async get(appId: string, ruleId: string): Promise<RuleRow | undefined> {
    return this.db.selectFrom('rules_recording_rules').selectAll().where('app_id', '=', appId).where('rule_id', '=', ruleId).executeTakeFirst();
  }

  /** Removes the rule and what it remembers of its recordings (running ones go on until their channel empties). */
  async remove(appId: string, ruleId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('rules_recording_rules').where('app_id', '=', appId).where('rule_id', '=', ruleId).executeTakeFirst();
    await this.db.deleteFrom('rules_recording_runs').where('rule_id', '=', ruleId).execute();
    return Number(r.numDeletedRows) > 0;
  }

  async runs(ruleId: string): Promise<RunRow[]> {
    return this.db.selectFrom('rules_recording_runs').selectAll().where('rule_id', '=', ruleId).orderBy('cname').execute();
  }

  async run(ruleId: string, cname: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('rules_recording_runs').selectAll().where('rule_id', '=', ruleId).where('cname', '=', cname).executeTakeFirst();
  }

  /**
   * Claims the channel's run for starting a recording: a new row, or the row as it was read (`seen`, its
   * `updated_ms`), so two processes that saw the same state never both start.
   */
  async claim(ruleId: string, cname: string, seen: RunRow | undefined, now: number, claimedUntil: number): Promise<boolean> {
    const fresh: RunRow = { rule_id: ruleId, cname, state: 'starting', resource_id: null, sid: null, uid: null, claimed_until: claimedUntil, updated_ms: now, error: null };
    if (seen === undefined) {
      const r = await this.db
        .insertInto('rules_recording_runs')
        .values(fresh)
        .onConflict((oc) => oc.columns(['rule_id', 'cname']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
    }
    const r = await this.db
      .updateTable('rules_recording_runs')
      .set({ state: 'starting', claimed_until: claimedUntil, updated_ms: Math.max(now, seen.updated_ms + 1), error: null })
      .where('rule_id', '=', ruleId)
      .where('cname', '=', cname)
      .where('updated_ms', '=', seen.updated_ms)
      .where('state', '=', seen.state)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async finish(ruleId: string, cname: string, patch: Pick<RunRow, 'state' | 'resource_id' | 'sid' | 'uid' | 'error'>, now: number): Promise<void> {
    await this.db
      .updateTable('rules_recording_runs')
      .set({ ...patch, claimed_until: null, updated_ms: now })
      .where('rule_id', '=', ruleId)
      .where('cname', '=', cname)
      .where('state', '=', 'starting')
      .execute();
  }
}
