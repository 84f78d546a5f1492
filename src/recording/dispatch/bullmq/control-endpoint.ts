/**
 * The recorder side of control over the bus (control.ts is the API side): takes update, updateLayout and stop
 * messages for one held session and answers each on its reply topic. A resent message (same ID) is answered from
 * its first run, so a stop or update is never applied twice.
 */
import type { MessageBus } from '../../../redis/index.ts';
import { mixLayoutSettings } from '../settings/index.ts';
import type { RecorderHandle, StopResult } from '../types.ts';
import { topics, type ControlMessage, type ControlReply } from './protocol.ts';

export interface ControlEndpointDeps {
  readonly bus: MessageBus;
  readonly sid: string;
  /** The recorder's handle once it started (undefined: it did not). */
  readonly ready: Promise<RecorderHandle | undefined>;
  /** Whether the recorder no longer holds the session (its lease is gone). */
  readonly fenced: () => boolean;
  /** The session's one stop (held-session.ts): every stop message gets its result. */
  readonly stop: () => Promise<StopResult>;
  readonly publish: (topic: string, body: unknown) => void;
}

/** Runs one control message against the session's recorder. */
async function execute(d: ControlEndpointDeps, m: ControlMessage): Promise<ControlReply> {
  const h = await d.ready;
  if (!h || d.fenced()) return { ok: false, message: 'the recorder no longer holds the session' };
  try {
    if (m.op === 'update') await h.update(m.change);
    // A message from an API process of an earlier version carries the request: translated as this version does.
    else if (m.op === 'updateLayout') await h.updateLayout?.('layout' in m ? m.layout : mixLayoutSettings(m.request));
    else return { ok: true, result: await d.stop() };
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** Subscribes to the session's control topic; resolves with the unsubscribe function once the subscription is active. */
export function openControlEndpoint(d: ControlEndpointDeps): Promise<() => Promise<void>> {
  const answered = new Map<string, Promise<ControlReply>>();
  return d.bus.subscribe(topics.control(d.sid), (raw) => {
    const m = JSON.parse(raw) as ControlMessage;
    let p = answered.get(m.id);
    if (!p) answered.set(m.id, (p = execute(d, m)));
    void p.then((r) => d.publish(topics.reply(m.id), r));
  });
}
