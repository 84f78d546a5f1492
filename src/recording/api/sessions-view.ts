/**
 * Bodies of reeltime's sessions API (docs/client.md, "Sessions API"): pure, from stored tasks. The request is
 * shown with every secret removed; files get the local bucket's URL when it serves them.
 */
import type { DeliveryRecord } from '../../notify/index.ts';
import type { EndedTask, LiveTask, StoppingTask } from '../lifecycle/task.ts';
import type { StoredEvent } from '../store/index.ts';
import type { StartClientRequest } from '../validation/types.ts';
import type { SessionDetailResponse, SessionSummary, SessionWebhook } from './schemas.ts';

export type SessionTask = LiveTask | StoppingTask | EndedTask;

export function sessionSummary(t: SessionTask): SessionSummary {
  const s = t.session;
  return {
    sid: s.sid,
    resourceId: t.resource.resourceId,
    cname: t.resource.cname,
    uid: t.resource.uid,
    mode: s.mode,
    state: t.kind,
    status: s.status,
    startedAt: s.startedAt,
    ...(t.kind === 'ended' ? { endedAt: t.endedAt, endReason: t.reason, uploadingStatus: t.uploadingStatus } : {}),
    ...(t.kind === 'stopping' ? { endReason: t.reason } : {}),
    fileCount: s.files.length,
  };
}

const SECRET_KEYS = new Set(['accessKey', 'secretKey', 'stsToken', 'token', 'secret', 'salt']);

/** A deep copy without the request's secret fields (storage keys, STS token, RTC token, decryption key and salt). */
export function withoutSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !SECRET_KEYS.has(k)).map(([k, x]) => [k, withoutSecrets(x)]));
}

/** `fileUrl(bucket, key)` when the local bucket serves files, else undefined. */
export type FileUrl = ((bucket: string, key: string) => string) | undefined;

/** A notification and its delivery: `retrying` once an attempt failed and another is scheduled. */
export function webhookView(d: DeliveryRecord): SessionWebhook {
  const details = d.payload.details;
  return {
    sequence: d.sequence,
    eventType: d.eventType,
    serviceType: d.serviceType,
    msgName: d.msgName,
    createdAt: d.createdMs,
    delivery: d.status === 'pending' && d.attempts.length > 0 ? 'retrying' : d.status,
    attempts: d.attempts.length,
    ...(d.deliveredMs !== null ? { deliveredAt: d.deliveredMs } : {}),
    ...(d.status === 'pending' && d.nextAttemptMs !== null ? { nextAttemptAt: d.nextAttemptMs } : {}),
    ...(d.lastError ? { lastError: d.lastError } : {}),
    details: details && typeof details === 'object' ? { ...(details as Record<string, unknown>) } : {},
  };
}

export function sessionDetail(
  t: SessionTask,
  events: readonly StoredEvent[],
  webhooks: readonly DeliveryRecord[],
  fileUrl: FileUrl,
): SessionDetailResponse {
  const cr: StartClientRequest = t.session.clientRequest;
  const bucket = cr.storageConfig.bucket;
  return {
    ...sessionSummary(t),
    clientRequest: withoutSecrets(cr) as Record<string, unknown>,
    files: t.session.files.map((f) => ({
      fileName: f.fileName,
      trackType: f.trackType,
      uid: f.uid,
      isPlayable: f.isPlayable,
      sliceStartTime: f.sliceStartTime,
      ...(fileUrl ? { url: fileUrl(bucket, f.fileName) } : {}),
    })),
    events: events.map((e) => ({ eventType: e.eventType, serviceType: e.serviceType, createdAt: e.createdAt, details: { ...e.details } })),
    webhooks: webhooks.map(webhookView),
  };
}

export interface SessionFilter {
  readonly mode?: string | undefined;
  readonly state?: string | undefined;
  /** Started at or after (Unix ms). */
  readonly from?: number | undefined;
  /** Started before (Unix ms). */
  readonly to?: number | undefined;
}

/** Position of a session in the list order: newest first, ties broken by sid so pages never overlap. */
interface Position {
  readonly startedAt: number;
  readonly sid: string;
}
const position = (t: SessionTask): Position => ({ startedAt: t.session.startedAt, sid: t.session.sid });
const order = (a: Position, b: Position) => b.startedAt - a.startedAt || (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0);

const encodeCursor = (p: Position) => Buffer.from(`${p.startedAt}:${p.sid}`).toString('base64url');

/** The position a cursor names, or undefined when it is not one this API handed out. */
export function decodeCursor(cursor: string): Position | undefined {
  const m = /^(\d{1,16}):([0-9a-f]{1,64})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? { startedAt: Number(m[1]), sid: m[2]! } : undefined;
}

/** One page of sessions after `after` (the previous page's last position). */
export function sessionPage(tasks: readonly SessionTask[], f: SessionFilter, after: Position | undefined, limit: number) {
  const kept = tasks
    .filter((t) => (f.mode === undefined || t.session.mode === f.mode) && (f.state === undefined || t.kind === f.state))
    .filter((t) => (f.from === undefined || t.session.startedAt >= f.from) && (f.to === undefined || t.session.startedAt < f.to))
    .filter((t) => after === undefined || order(after, position(t)) < 0)
    .sort((a, b) => order(position(a), position(b)));
  const page = kept.slice(0, limit);
  return {
    sessions: page.map(sessionSummary),
    ...(kept.length > limit ? { nextCursor: encodeCursor(position(page.at(-1)!)) } : {}),
  };
}
