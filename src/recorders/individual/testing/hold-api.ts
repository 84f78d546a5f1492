/** Pause and resume through the recording API, as the hold tests of every mode drive it (docs/recording-api.md). */
import assert from 'node:assert/strict';
import type { Harness, WebhookEvent } from './harness.ts';

/** `update` with `recordingConfig.onhold`; the API must accept it. */
export async function setHold(h: Pick<Harness, 'api' | 'path'>, ids: { rid: string; sid: string; cname: string; uid: string }, onhold: boolean): Promise<void> {
  const up = await h.api('POST', h.path(ids.rid, ids.sid, 'update'), { cname: ids.cname, uid: ids.uid, clientRequest: { recordingConfig: { onhold } } });
  assert.equal(up.status, 200, JSON.stringify(up.body));
}

/** `query`'s `serverResponse.onhold`: true while on hold, absent otherwise (the hosted form). */
export async function queryHold(h: Pick<Harness, 'api' | 'path'>, ids: { rid: string; sid: string }): Promise<boolean | undefined> {
  const q = await h.api('GET', h.path(ids.rid, ids.sid, 'query'));
  assert.equal(q.status, 200, JSON.stringify(q.body));
  return (q.body.serverResponse as { onhold?: boolean }).onhold;
}

/** A session's webhook events in the order they were sent. */
export function sessionEvents(h: Pick<Harness, 'events'>, sid: string): WebhookEvent[] {
  return h.events.filter((e) => e.payload.sid === sid).sort((a, b) => a.payload.sequence - b.payload.sequence);
}
