/** What a module hands to the notifier: one cloud-recording event (docs/notify.md, "Event and service types"). */
export interface RecordingEventInput {
  readonly appId: string;
  readonly sid: string;
  readonly cname: string;
  readonly uid: string;
  /** Event type (docs/notify.md, "Event and service types"): 40, 41, 30, 31, 32, 33, 4, 11, 1, 2, 45, 80, 81, 1001, ... */
  readonly eventType: number;
  /** 0 cloud recording service, 1 recorder, 2 uploader, 4 extension services, 6 web page recorder, 8 download. */
  readonly serviceType: number;
  readonly details: { readonly msgName: string; readonly [k: string]: unknown };
}

/**
 * `pending`: waiting for its turn or a retry; `delivered`: the webhook answered 200 in time; `failed`: every attempt
 * failed (kept for inspection); `skipped`: no webhook was configured for the app when the event was emitted.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** One POST of an event to the webhook. */
export interface DeliveryAttempt {
  /** 1 for the first send, 2..4 for the retries. */
  readonly attempt: number;
  /** Clock time the request was sent (also its `notifyMs`). */
  readonly atMs: number;
  /** HTTP status the receiver answered, when it answered. */
  readonly httpStatus: number | null;
  /** Why the attempt failed (timeout, refused address, connection error, non-200 status); null on success. */
  readonly error: string | null;
  readonly durationMs: number;
}

/** The stored state of one event's delivery; never contains the webhook secret or URL credentials. */
export interface DeliveryRecord {
  readonly noticeId: string;
  readonly appId: string;
  readonly sid: string;
  readonly cname: string;
  readonly uid: string;
  readonly sequence: number;
  readonly eventType: number;
  readonly serviceType: number;
  readonly msgName: string;
  /** The envelope's `payload` as sent (cname, uid, sid, sequence, sendts, serviceType, details). */
  readonly payload: Readonly<Record<string, unknown>>;
  readonly status: DeliveryStatus;
  readonly attempts: readonly DeliveryAttempt[];
  readonly createdMs: number;
  /** When the next attempt is due (pending only). */
  readonly nextAttemptMs: number | null;
  readonly deliveredMs: number | null;
  /** Reason of the last failed attempt, or why the event was skipped. */
  readonly lastError: string | null;
}

export interface DeliveryFilter {
  readonly appId?: string;
  readonly sid?: string;
}
