/**
 * Messages between API processes and recorder processes (docs/deployment.md, "Recording dispatch"). Jobs and
 * messages carry identifiers only: the task, with its storage secrets, stays in the database.
 */
import type { MixLayoutSettings } from '../../../media/mix/index.ts';
import type { UpdateLayoutClientRequest } from '../../validation/types.ts';
import type { RecorderUpdate } from '../subscription.ts';
import type { StopResult } from '../types.ts';

export const QUEUE_NAME = 'recording-sessions';

/** Data of one BullMQ job: a session to record. Its job ID is the sid, so one session is never queued twice. */
export interface SessionJob {
  readonly resourceId: string;
  readonly sid: string;
}

/** Bus topics, all per sid (32 hex digits) or per request ID. */
export const topics = {
  accepted: (sid: string) => `recording:accepted:${sid}`,
  control: (sid: string) => `recording:control:${sid}`,
  reply: (requestId: string) => `recording:reply:${requestId}`,
  /** A recorder's stop finished (whoever asked): a ControlReply with the StopResult. */
  stopped: (sid: string) => `recording:stopped:${sid}`,
} as const;

export type Accepted =
  | { readonly ok: true }
  /** `refused`: the recorder refused the session for a reason the request can fix (RecorderRefusedError). */
  | { readonly ok: false; readonly message: string; readonly refused?: { readonly field: string; readonly rule: string } };

export type ControlMessage =
  | { readonly id: string; readonly op: 'update'; readonly change: RecorderUpdate }
  | { readonly id: string; readonly op: 'updateLayout'; readonly layout: MixLayoutSettings }
  /** updateLayout as API processes before the recorder settings sent it (the request itself); still taken. */
  | { readonly id: string; readonly op: 'updateLayout'; readonly request: UpdateLayoutClientRequest }
  | { readonly id: string; readonly op: 'stop' };

export type ControlReply =
  | { readonly ok: true; readonly result?: StopResult }
  | { readonly ok: false; readonly message: string };
