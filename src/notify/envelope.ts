import type { RecordingEventInput } from './types.ts';

/** NCS product id of Cloud Recording (docs/notify.md, "What the receiver gets"). */
export const PRODUCT_ID_CLOUD_RECORDING = 3;

/**
 * The envelope's `payload` as JSON text, fields in the documented order (cname, uid, sid, sequence, sendts,
 * serviceType, details) with `msgName` first in `details`. Stored as text so every resend carries the same bytes.
 */
export function encodePayload(event: RecordingEventInput, sequence: number, sendts: number): string {
  const { msgName, ...rest } = event.details;
  const payload = {
    cname: event.cname,
    uid: event.uid,
    sid: event.sid,
    sequence,
    sendts,
    serviceType: event.serviceType,
    details: { msgName, ...rest },
  };
  return JSON.stringify(payload);
}

/**
 * The request body of one delivery attempt. `notifyMs` changes on every resend (docs/notify.md), so the body is built per
 * attempt around the stored payload text; signatures are computed over exactly these bytes.
 */
export function encodeEnvelope(noticeId: string, eventType: number, notifyMs: number, payloadJson: string): string {
  return (
    `{"noticeId":${JSON.stringify(noticeId)},"productId":${PRODUCT_ID_CLOUD_RECORDING},` +
    `"eventType":${eventType},"notifyMs":${notifyMs},"payload":${payloadJson}}`
  );
}
