/** The task info object: one per resource ID, with a literal `kind` per lifecycle state. Plain, serialisable data. */
import type { RecordedFile, RecordingStatus, RtmpStatus, EndReason, UploadingStatus } from '../dispatch/types.ts';
import type { Area, LayoutFields, RecordingMode, Scene, StartClientRequest } from '../validation/types.ts';

/** A resource ID is valid this long after acquire (spec). */
export const RESOURCE_TTL_MS = 5 * 60 * 1000;
export const DEFAULT_RESOURCE_EXPIRED_HOUR = 72;

export interface Resource {
  readonly resourceId: string;
  readonly appId: string;
  readonly cname: string;
  readonly uid: string;
  readonly scene: Scene;
  readonly resourceExpiredHour: number;
  readonly region: Area | undefined;
  readonly excludeResourceIds: readonly string[];
  /** Canonical JSON of acquire's startParameter (valid or not), compared with start's clientRequest. */
  readonly startParameter: string | undefined;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

export interface RtmpOutputState {
  readonly rtmpUrl: string;
  readonly status: RtmpStatus;
}

export interface Session {
  readonly sid: string;
  readonly mode: RecordingMode;
  readonly clientRequest: StartClientRequest;
  readonly startedAt: number;
  /** query/update/updateLayout/stop are refused from this time on (resourceExpiredHour after start). */
  readonly apiExpiresAt: number;
  /** Web mode: maxRecordingHour after start, when recording stops by itself. */
  readonly recordingEndsAt: number | undefined;
  readonly status: RecordingStatus;
  readonly files: readonly RecordedFile[];
  readonly sliceStartTime: number | undefined;
  readonly onhold: boolean;
  readonly rtmp: readonly RtmpOutputState[];
  /** Current mix layout (start's transcodingConfig layout, replaced by each updateLayout). */
  readonly layout: LayoutFields | undefined;
}

export interface IssuedTask {
  readonly kind: 'issued';
  readonly resource: Resource;
}

export interface LiveTask {
  readonly kind: 'live';
  readonly resource: Resource;
  readonly session: Session;
}

export interface StoppingTask {
  readonly kind: 'stopping';
  readonly resource: Resource;
  readonly session: Session;
  readonly stopRequestedAt: number;
  /** Why the session is stopping: an API stop, or the control plane ending it (expiry). */
  readonly reason: EndReason;
}

export interface EndedTask {
  readonly kind: 'ended';
  readonly resource: Resource;
  readonly session: Session;
  readonly endedAt: number;
  readonly reason: EndReason;
  readonly uploadingStatus: UploadingStatus;
  readonly recordedAnything: boolean;
  /**
   * The recorder never launched (start answered 5xx). The resource stays startable until it expires, because the
   * hosted service's advice is to retry the same start after 3, 6 and 9 s (docs/recording-api.md).
   */
  readonly launchFailed?: true;
}

export type Task = IssuedTask | LiveTask | StoppingTask | EndedTask;

export const isEnded = (t: Task): t is EndedTask => t.kind === 'ended';
/** Live or stopping: a recorder holds the session. */
export const hasSession = (t: Task): t is LiveTask | StoppingTask => t.kind === 'live' || t.kind === 'stopping';

export function createIssuedTask(resource: Resource): IssuedTask {
  return Object.freeze({ kind: 'issued', resource });
}
