import { randomInt } from 'node:crypto';
import { buildRtcTokenWithUid } from '@reeltime/token';
import type { Clock } from '../clock/index.ts';
import type { Logger } from '../log/index.ts';
import { guardedFetch, type OutboundPolicy } from '../net/index.ts';
import type { RecordingCustomer, StartClientRequest } from '../recording/index.ts';
import { matchesCname } from './rule.ts';
import type { RuleRow, RuleStore, RunRow } from './store.ts';

/** How long one process holds a channel's run while it acquires and starts (a crashed one's claim runs out). */
export const START_CLAIM_MS = 60_000;
/** A recorder's token lasts as long as the longest recording the API allows (maxRecordingHour 720 h is capped by it). */
const RECORDER_TOKEN_SECONDS = 24 * 3600;
/** Random uids a rule gives its recorder when it names none: far above the small uids apps hand their users. */
const RANDOM_UID_MIN = 1_000_000_000;

export interface RuleEngineDeps {
  readonly store: RuleStore;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where the recording API answers (this process with the `api` role, otherwise the deployment's public URL). */
  readonly apiUrl: () => string;
  readonly policy: OutboundPolicy;
  readonly customers: readonly RecordingCustomer[];
  /** The deployment's own app and certificate: recorders of its channels get tokens minted here. */
  readonly app: { readonly appId: string; readonly appCertificate: string };
  /** A rule's stored start request (unsealed), or undefined when it cannot be read (certificate changed). */
  readonly clientRequestOf: (rule: RuleRow) => StartClientRequest | undefined;
}

interface ApiAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * Starts a rule's recording when a matching channel gets a publisher and none of the rule's recordings of it is
 * running, through the recording API itself (so sessions, webhooks, query and stop behave as for any client). The
 * recording ends as any does: after `maxIdleTime` without users, or by `stop`.
 */
export class RuleEngine {
  readonly #d: RuleEngineDeps;
  /** Channels being looked at now in this process, so a burst of publish events makes one pass each. */
  readonly #busy = new Map<string, Promise<void>>();

  constructor(deps: RuleEngineDeps) {
    this.#d = deps;
  }

  /** A publisher appeared in the channel: record it for every rule of its app that matches and has no recording running. */
  onPublish(appId: string, cname: string): Promise<void> {
    const key = `${appId}\n${cname}`;
    const running = this.#busy.get(key);
    if (running) return running;
    const pass = this.#consider(appId, cname).finally(() => this.#busy.delete(key));
    this.#busy.set(key, pass);
    return pass;
  }

  /** Waits for the passes in flight (close). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#busy.values()]);
  }

  async #consider(appId: string, cname: string): Promise<void> {
    let rules: RuleRow[];
    try {
      rules = (await this.#d.store.list(appId)).filter((r) => matchesCname(r.cname_pattern, cname));
    } catch (e) {
      this.#d.log.warn({ err: e, appId, cname }, 'rules: cannot read the rules');
      return;
    }
    for (const rule of rules) {
      try {
        await this.#ensure(rule, cname);
      } catch (e) {
        this.#d.log.warn({ err: e, ruleId: rule.rule_id, cname }, 'rules: could not check or start the recording');
      }
    }
  }

  async #ensure(rule: RuleRow, cname: string): Promise<void> {
    const { store, clock } = this.#d;
    const seen = await store.run(rule.rule_id, cname);
    if (seen?.state === 'starting' && (seen.claimed_until ?? 0) > clock.now()) return;
    if (seen?.state === 'recording' && (await this.#stillRecording(rule, seen))) return;
    const now = clock.now();
    if (!(await store.claim(rule.rule_id, cname, seen, now, now + START_CLAIM_MS))) return;
    try {
      const started = await this.#start(rule, cname);
      await store.finish(rule.rule_id, cname, { state: 'recording', ...started, error: null }, clock.now());
      this.#d.log.info({ ruleId: rule.rule_id, cname, sid: started.sid }, 'rules: recording started');
    } catch (e) {
      const error = (e as Error).message;
      await store.finish(rule.rule_id, cname, { state: 'failed', resource_id: null, sid: null, uid: null, error }, clock.now());
      this.#d.log.warn({ ruleId: rule.rule_id, cname, error }, 'rules: the recording did not start');
    }
  }

  /** Whether the run's session still records: query answers 200 while it does. */
  async #stillRecording(rule: RuleRow, run: RunRow): Promise<boolean> {
    if (!run.resource_id || !run.sid) return false;
    const r = await this.#api(rule, 'GET', `/resourceid/${encodeURIComponent(run.resource_id)}/sid/${run.sid}/mode/${rule.mode}/query`);
    return r.status === 200;
  }

  async #start(rule: RuleRow, cname: string): Promise<Pick<RunRow, 'resource_id' | 'sid' | 'uid'>> {
    const clientRequest = this.#d.clientRequestOf(rule);
    if (!clientRequest) throw new Error('the rule cannot be read (was the app certificate changed?); create it again');
    // A named uid once; a random one up to three times, since a publisher may hold it (start refuses a taken uid).
    const tries = rule.uid === null ? 3 : 1;
    let last = '';
    for (let i = 0; i < tries; i++) {
      const uid = rule.uid ?? String(randomInt(RANDOM_UID_MIN, 0xffffffff));
      const acquire = await this.#api(rule, 'POST', '/acquire', { cname, uid, clientRequest: { scene: rule.scene } });
      if (acquire.status !== 200) throw new Error(`acquire answered ${acquire.status}: ${JSON.stringify(acquire.body)}`);
      const resourceId = String(acquire.body.resourceId);
      const token = this.#token(rule.app_id, cname, uid);
      const start = await this.#api(rule, 'POST', `/resourceid/${encodeURIComponent(resourceId)}/mode/${rule.mode}/start`, {
        cname,
        uid,
        clientRequest: { ...clientRequest, ...(token ? { token } : {}) },
      });
      if (start.status === 200) return { resource_id: resourceId, sid: String(start.body.sid), uid };
      last = `start answered ${start.status}: ${JSON.stringify(start.body)}`;
    }
    throw new Error(last);
  }

  #token(appId: string, cname: string, uid: string): string | undefined {
    const { app } = this.#d;
    if (!app.appCertificate || appId.toLowerCase() !== app.appId.toLowerCase()) return undefined;
    return buildRtcTokenWithUid(app.appId, app.appCertificate, cname, Number(uid), 2, RECORDER_TOKEN_SECONDS, RECORDER_TOKEN_SECONDS);
  }

  async #api(rule: RuleRow, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> {
    const customer = this.#d.customers.find((c) => c.id === rule.customer_id);
    if (!customer) throw new Error(`customer ${rule.customer_id} of the rule is no longer configured`);
    const url = `${this.#d.apiUrl()}/v1/apps/${rule.app_id}/cloud_recording${path}`;
    const res = await guardedFetch(
      url,
      {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${customer.id}:${customer.secret}`).toString('base64')}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      this.#d.policy,
    );
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { raw: text.slice(0, 200) };
    }
    return { status: res.status, body: parsed };
  }
}
