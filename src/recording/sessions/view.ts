/**
 * What the sessions API answers (docs/recording-api.md, "Sessions: reeltime's extension"): pure shaping of a task,
 * its status history and its webhook deliveries. No I/O here.
 */
import type { DeliveryRecord } from '../../notify/index.ts';
import type { RecordedFile } from '../dispatch/types.ts';
import type { Task } from '../lifecycle/index.ts';
import { redactStartRequest } from '../scrub.ts';
import type { StatusChange } from '../store/task-store.ts';

/** A link to an object of the session's bucket that a browser can play, or undefined when there is none. */
export type PlaybackUrl = (bucket: string, key: string) => string | undefined;

type SessionTask = Exclude<Task, { kind: 'issued' }>;

export interface SessionSummary {
  readonly appId: string;
  readonly resourceId: string;
  readonly sid: string;
  readonly cname: string;
  readonly uid: string;
  readonly mode: string;
  /** live, stopping or ended. */
  readonly state: SessionTask['kind'];
  /** serverResponse.status of query. */
  readonly status: number;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly fileCount: number;
}

export interface SessionFile extends RecordedFile {
  /** Playable URL when the bucket is the local one this server serves (signed in production). */
  readonly url: string | null;
}

export interface SessionEvent {
  readonly sequence: number;
  readonly eventType: number;
  readonly serviceType: number;
  readonly msgName: string;
  readonly createdAt: number;
  readonly details: unknown;
  /** delivered, retrying (pending with attempts made), pending, failed, skipped (no webhook configured). */
  readonly delivery: 'delivered' | 'retrying' | 'pending' | 'failed' | 'skipped';
  readonly attempts: readonly { readonly at: number; readonly httpStatus: number | null; readonly error: string | null }[];
  readonly deliveredAt: number | null;
  readonly nextAttemptAt: number | null;
  readonly lastError: string | null;
}

export interface SessionDetail extends SessionSummary {
  readonly request: unknown;
  readonly bucket: string;
  readonly stopRequestedAt: number | null;
  readonly endReason: string | null;
  readonly uploadingStatus: string | null;
  readonly sliceStartTime: number | null;
  readonly onhold: boolean;
  readonly rtmp: readonly { readonly rtmpUrl: string; readonly status: string }[];
  readonly statusHistory: readonly StatusChange[];
  readonly files: readonly SessionFile[];
  readonly events: readonly SessionEvent[];
}

export const hasStarted = (t: Task): t is SessionTask => t.kind !== 'issued';

export function sessionSummary(t: SessionTask): SessionSummary {
  return {
    appId: t.resource.appId,
    resourceId: t.resource.resourceId,
    sid: t.session.sid,
    cname: t.resource.cname,
    uid: t.resource.uid,
    mode: t.session.mode,
    state: t.kind,
    status: t.session.status,
    startedAt: t.session.startedAt,
    endedAt: t.kind === 'ended' ? t.endedAt : null,
    fileCount: t.session.files.length,
  };
}

function eventView(d: DeliveryRecord): SessionEvent {
  const payload = d.payload as { details?: unknown };
  return {
    sequence: d.sequence,
    eventType: d.eventType,
    serviceType: d.serviceType,
    msgName: d.msgName,
    createdAt: d.createdMs,
    details: payload.details ?? null,
    delivery: d.status === 'pending' && d.attempts.length > 0 ? 'retrying' : d.status,
    attempts: d.attempts.map((a) => ({ at: a.atMs, httpStatus: a.httpStatus, error: a.error })),
    deliveredAt: d.deliveredMs,
    nextAttemptAt: d.nextAttemptMs,
    lastError: d.lastError,
  };
}

export function sessionDetail(
  t: SessionTask,
  history: readonly StatusChange[],
  deliveries: readonly DeliveryRecord[],
  playbackUrl: PlaybackUrl,
): SessionDetail {
  const s = t.session;
  const bucket = s.clientRequest.storageConfig.bucket;
  return {
    ...sessionSummary(t),
    request: redactStartRequest(s.clientRequest),
    bucket,
    stopRequestedAt: t.kind === 'stopping' ? t.stopRequestedAt : null,
    endReason: t.kind === 'stopping' || t.kind === 'ended' ? t.reason : null,
    uploadingStatus: t.kind === 'ended' ? t.uploadingStatus : null,
    sliceStartTime: s.sliceStartTime ?? null,
    onhold: s.onhold,
    rtmp: s.rtmp,
    statusHistory: history,
    files: s.files.map((f) => ({ ...f, url: playbackUrl(bucket, f.fileName) ?? null })),
    events: [...deliveries].sort((a, b) => a.sequence - b.sequence).map(eventView),
  };
}
