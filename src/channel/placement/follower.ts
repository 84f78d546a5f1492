import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { guardedFetch, type OutboundPolicy } from '../../net/index.ts';
import { readSseStream } from '../client/sse.ts';
import type { ChannelEvent, ChannelEventListener, ChannelSnapshot, Profile } from '../membership/index.ts';
import { applyChannelEvent, emptySnapshot, snapshotChanges } from './remote-snapshot.ts';

/** A channel's membership wherever it is hosted, as a process that does not host it sees it. */
export interface ChannelView {
  snapshot(): ChannelSnapshot;
  /** Changes of this channel only; returns the unsubscribe function. */
  onEvent(listener: ChannelEventListener): () => void;
  /** Base URL of the node hosting the channel now, when it is another process (WHEP goes there). */
  hostUrl(): string | undefined;
}

export interface FollowerOptions {
  readonly appId: string;
  readonly cname: string;
  /** The owner node's base URL now (placement directory); undefined when nobody hosts the channel. */
  readonly owner: () => Promise<string | undefined>;
  /** Authorization header for the owner's event stream (the customer's Basic credentials). */
  readonly authorization: string;
  /** How often the directory is asked again: for a channel nobody hosts yet, or that moved. */
  readonly pollMs: number;
  /** The outbound URL guard's rule for peer nodes (the owner URL comes from Redis, not from this process). */
  readonly policy: () => OutboundPolicy;
  readonly clock: Clock;
  readonly log: Logger;
}

export interface ChannelFollower extends ChannelView {
  close(): void;
}

interface StreamedEvent extends ChannelEvent {
  /** The channel's profile after the event (the owner sends it along; null once empty). */
  readonly profile?: Profile | null;
}

interface StreamedSnapshot {
  readonly profile: Profile | null;
  readonly participants: ChannelSnapshot['participants'];
}

/**
 * Follows a channel on the node that hosts it: finds the node in the placement directory, reads its membership
 * event stream (snapshot, then changes) and keeps a copy here. When the stream ends (the node died or let the
 * channel go) everybody there is taken as gone and the directory is asked again, so the channel is followed
 * to the node where its participants reconnect.
 */
export function followChannel(o: FollowerOptions): ChannelFollower {
  const listeners = new Set<ChannelEventListener>();
  let snap = emptySnapshot(o.appId, o.cname);
  let connectedTo: string | undefined;
  let abort: AbortController | undefined;
  let timer: TimerHandle | undefined;
  let closed = false;
  const log = o.log.child({ cname: o.cname });

  const emit = (e: ChannelEvent) => {
    for (const l of [...listeners]) {
      try {
        l(e);
      } catch {
        // one faulty listener must not stop the others
      }
    }
  };
  const replace = (next: ChannelSnapshot) => {
    const changes = snapshotChanges(snap, next, o.clock.now());
    snap = next;
    for (const e of changes) emit(e);
  };
  const disconnect = () => {
    abort?.abort();
    abort = undefined;
    connectedTo = undefined;
    replace(emptySnapshot(o.appId, o.cname));
  };

  const eventsUrl = (base: string) =>
    `${base.replace(/\/+$/, '')}/rtc/v1/apps/${encodeURIComponent(o.appId)}/channels/${encodeURIComponent(o.cname)}/events`;

  async function connect(ownerUrl: string): Promise<void> {
    const ctl = new AbortController();
    abort = ctl;
    connectedTo = ownerUrl;
    try {
      // No redirect is followed: a 307 means the channel moved meanwhile, and the next round asks the directory.
      const res = await guardedFetch(
        eventsUrl(ownerUrl),
        { headers: { authorization: o.authorization, accept: 'text/event-stream' }, signal: ctl.signal },
        o.policy(),
      );
      if (res.status !== 200 || !res.body) {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`event stream answered HTTP ${res.status}`);
      }
      await readSseStream(res.body as unknown as AsyncIterable<Uint8Array>, (m) => {
        if (ctl.signal.aborted) return;
        if (m.event === 'snapshot') {
          const s = m.data as StreamedSnapshot;
          replace({ appId: o.appId, cname: o.cname, profile: s.profile ?? undefined, participants: s.participants });
        } else if (m.event === 'join' || m.event === 'leave' || m.event === 'publish' || m.event === 'unpublish') {
          const e = m.data as StreamedEvent;
          snap = applyChannelEvent(snap, e, e.profile ?? undefined);
          emit(e);
        }
      });
      throw new Error('event stream ended');
    } catch (e) {
      if (ctl.signal.aborted || closed) return;
      log.warn({ owner: ownerUrl, err: (e as Error).message }, 'channel event stream lost; looking for the channel again');
      if (abort === ctl) disconnect();
    }
  }

  async function round(): Promise<void> {
    let owner: string | undefined;
    try {
      owner = await o.owner();
    } catch (e) {
      // Directory unreachable (Redis restarting): keep following where we are.
      log.warn({ err: (e as Error).message }, 'channel directory unreachable');
      return;
    }
    if (closed) return;
    // A missing key while the stream is up is a directory that lost it (Redis restarted): the stream decides.
    if (owner === undefined || owner === connectedTo) return;
    if (connectedTo !== undefined) disconnect();
    void connect(owner);
  }

  const schedule = () => {
    if (closed) return;
    timer = o.clock.setTimeout(() => void round().finally(schedule), o.pollMs);
  };
  void round().finally(schedule);

  return {
    snapshot: () => snap,
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    hostUrl: () => connectedTo,
    close() {
      closed = true;
      if (timer) o.clock.clearTimeout(timer);
      abort?.abort();
      listeners.clear();
    },
  };
}
