/**
 * What the sessions API answers (docs/recording-api.md, "Sessions"): pure shaping of a task, its status history,
 * its control-plane events and its webhook deliveries. The shapes are the response schemas in api/schemas.ts.
 */
import type { StorageConfig } from '../../storage/index.ts';
import type { DeliveryRecord } from '../../notify/index.ts';
import type { SessionDetailResponse, SessionSummary, SessionUploads, SessionWebhook } from '../api/schemas.ts';
import type { Task } from '../lifecycle/index.ts';
import { redactStartRequest } from '../scrub.ts';
import type { StatusChange, StoredEvent } from '../store/task-store.ts';

/** Links a browser can play a session's files from, by key (the storage module's `playbackUrls`). */
export type PlaybackUrls = (appId: string, storage: StorageConfig, keys: readonly string[]) => Promise<ReadonlyMap<string, string>>;

type SessionTask = Exclude<Task, { kind: 'issued' }>;

export const hasStarted = (t: Task): t is SessionTask => t.kind !== 'issued';

/** Present fields only: the API leaves a field out rather than sending null. */
const present = <K extends string, V>(key: K, v: V | null | undefined): { [P in K]?: V } =>
  (v === null || v === undefined ? {} : { [key]: v }) as { [P in K]?: V };

export function sessionSummary(t: SessionTask): SessionSummary {
  return {
    appId: t.resource.appId,
    sid: t.session.sid,
    resourceId: t.resource.resourceId,
    cname: t.resource.cname,
    uid: t.resource.uid,
    mode: t.session.mode,
    state: t.kind,
    status: t.session.status,
    startedAt: t.session.startedAt,
    ...(t.kind === 'ended' ? { endedAt: t.endedAt } : {}),
    ...(t.kind !== 'live' ? { endReason: t.reason } : {}),
    ...(t.kind === 'ended' ? { uploadingStatus: t.uploadingStatus } : {}),
    fileCount: t.session.files.length,
  };
}

const detailsOf = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? { ...(v as Record<string, unknown>) } : {});

/** A notification and its delivery: `retrying` once an attempt failed and another is scheduled. */
export function webhookView(d: DeliveryRecord): SessionWebhook {
  return {
    sequence: d.sequence,
    eventType: d.eventType,
    serviceType: d.serviceType,
    msgName: d.msgName,
    createdAt: d.createdMs,
    delivery: d.status === 'pending' && d.attempts.length > 0 ? 'retrying' : d.status,
    attempts: d.attempts.map((a) => ({ at: a.atMs, ...present('httpStatus', a.httpStatus), ...present('error', a.error) })),
    ...present('deliveredAt', d.deliveredMs),
    ...(d.status === 'pending' ? present('nextAttemptAt', d.nextAttemptMs) : {}),
    ...present('lastError', d.lastError),
    details: detailsOf(d.payload.details),
  };
}

export function sessionDetail(
  t: SessionTask,
  history: readonly StatusChange[],
  events: readonly StoredEvent[],
  deliveries: readonly DeliveryRecord[],
  urls: ReadonlyMap<string, string>,
  uploads: SessionUploads,
): SessionDetailResponse {
  const s = t.session;
  const bucket = s.clientRequest.storageConfig.bucket;
  return {
    ...sessionSummary(t),
    clientRequest: { ...redactStartRequest(s.clientRequest) },
    bucket,
    ...(t.kind === 'stopping' ? { stopRequestedAt: t.stopRequestedAt } : {}),
    ...present('sliceStartTime', s.sliceStartTime),
    onhold: s.onhold,
    rtmp: s.rtmp.map((o) => ({ rtmpUrl: o.rtmpUrl, status: o.status })),
    statusHistory: history.map((h) => ({ state: h.state, status: h.status, at: h.at })),
    files: s.files.map((f) => ({
      fileName: f.fileName,
      trackType: f.trackType,
      uid: f.uid,
      mixedAllUser: f.mixedAllUser,
      isPlayable: f.isPlayable,
      sliceStartTime: f.sliceStartTime,
      ...present('url', urls.get(f.fileName)),
    })),
    uploads,
    events: events.map((e) => ({ eventType: e.eventType, serviceType: e.serviceType, createdAt: e.createdAt, details: detailsOf(e.details) })),
    webhooks: [...deliveries].sort((a, b) => a.sequence - b.sequence).map(webhookView),
  };
}
