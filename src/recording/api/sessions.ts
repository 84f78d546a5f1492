/**
 * reeltime's sessions API, an extension beside the hosted service's paths (docs/client.md, "Sessions API"):
 * GET …/cloud_recording/sessions (filters, newest first, cursor pages) and GET …/cloud_recording/sessions/{sid}.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DeliveryRecord } from '../../notify/index.ts';
import { RecordingApiError } from '../errors.ts';
import { hasSession, isEnded } from '../lifecycle/task.ts';
import type { TaskStore } from '../store/index.ts';
import { decodeCursor, sessionDetail, sessionPage, type FileUrl, type SessionTask } from './sessions-view.ts';

export interface SessionsDeps {
  readonly store: TaskStore;
  /** Whether this server serves the local bucket (files then get a URL). */
  readonly serveBucket: boolean;
  /** The session's notifications and their delivery state (the notify module's records). */
  readonly webhooks: (appId: string, sid: string) => Promise<readonly DeliveryRecord[]>;
}

const MODES = ['individual', 'mix', 'web'];
const STATES = ['live', 'stopping', 'ended'];

const invalid = (field: string, rule: string) => new RecordingApiError('invalidParameter', `${field}: ${rule}`);

function oneOf(q: Record<string, unknown>, key: string, values: readonly string[]): string | undefined {
  const v = q[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !values.includes(v)) throw invalid(key, `must be one of ${values.map((x) => JSON.stringify(x)).join(', ')}`);
  return v;
}

function integer(q: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const v = q[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d{1,16}$/.test(v) || Number(v) < min || Number(v) > max) throw invalid(key, `must be an integer from ${min} to ${max}`);
  return Number(v);
}

const isSessionTask = (t: { kind: string }): t is SessionTask => t.kind !== 'issued';

export function registerSessionRoutes(r: FastifyInstance, base: string, deps: SessionsDeps): void {
  const fileUrl = (req: FastifyRequest): FileUrl =>
    deps.serveBucket
      ? (bucket, key) => `${req.protocol}://${req.host}/bucket/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`
      : undefined;

  r.get<{ Params: { appid: string } }>(`${base}/sessions`, async (req) => {
    const q = req.query as Record<string, unknown>;
    const cname = q.cname;
    if (cname !== undefined && (typeof cname !== 'string' || cname.length === 0 || cname.length > 1024)) throw invalid('cname', 'must be a channel name');
    const cursorText = q.cursor;
    const after = cursorText === undefined ? undefined : typeof cursorText === 'string' ? decodeCursor(cursorText) : undefined;
    if (cursorText !== undefined && after === undefined) throw invalid('cursor', 'must be the nextCursor of a previous page');
    const filter = {
      mode: oneOf(q, 'mode', MODES),
      state: oneOf(q, 'status', STATES),
      from: integer(q, 'from', 0, Number.MAX_SAFE_INTEGER),
      to: integer(q, 'to', 0, Number.MAX_SAFE_INTEGER),
    };
    const limit = integer(q, 'limit', 1, 100) ?? 20;
    const tasks = (await deps.store.sessionsOf(req.params.appid, cname as string | undefined)).filter(isSessionTask);
    return sessionPage(tasks, filter, after, limit);
  });

  r.get<{ Params: { appid: string; sid: string } }>(`${base}/sessions/:sid`, async (req) => {
    const task = await deps.store.bySid(req.params.sid);
    if (!task || task.resource.appId !== req.params.appid || !(hasSession(task) || isEnded(task))) {
      throw new RecordingApiError('workerNotFound', undefined, {});
    }
    const sid = task.session.sid;
    return sessionDetail(task, await deps.store.events(sid), await deps.webhooks(req.params.appid, sid), fileUrl(req));
  });
}
