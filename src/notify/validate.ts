import type { RecordingEventInput } from './types.ts';

function nonEmpty(v: unknown, field: string): void {
  if (typeof v !== 'string' || v === '') throw new TypeError(`notify event: ${field} must be a non-empty string`);
}

function integer(v: unknown, field: string): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new TypeError(`notify event: ${field} must be a non-negative integer`);
  }
}

/** Checks an event from another module before it is stored; a bad one is a programming error, named by field. */
export function validateEvent(e: RecordingEventInput): void {
  nonEmpty(e.appId, 'appId');
  nonEmpty(e.sid, 'sid');
  if (typeof e.cname !== 'string') throw new TypeError('notify event: cname must be a string');
  if (typeof e.uid !== 'string') throw new TypeError('notify event: uid must be a string');
  integer(e.eventType, 'eventType');
  integer(e.serviceType, 'serviceType');
  if (!e.details || typeof e.details !== 'object' || Array.isArray(e.details)) {
    throw new TypeError('notify event: details must be an object');
  }
  nonEmpty(e.details.msgName, 'details.msgName');
  try {
    JSON.stringify(e.details);
  } catch (err) {
    throw new TypeError(`notify event: details must be JSON-serialisable (${(err as Error).message})`);
  }
}
