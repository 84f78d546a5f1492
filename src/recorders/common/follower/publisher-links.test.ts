import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MediaKind } from '../../../channel/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import { ChannelRefusal, type MediaSubscription } from './channel-source.ts';
import { PublisherLinks } from './publisher-links.ts';
import { settle } from '../../../testing/wait.ts';

const OPUS: RtpTrackDescription = { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 };

/** A WHEP subscription whose packets the test pushes by hand. */
class FakeSubscription implements MediaSubscription {
  closed = false;
  keyframes = 0;
  #cb: ((kind: MediaKind, track: RtpTrackDescription, packet: Buffer) => void) | undefined;
  onPacket(cb: (kind: MediaKind, track: RtpTrackDescription, packet: Buffer) => void): void {
    this.#cb = cb;
  }
  onSenderReport(): void {}
  requestKeyframe(): void {
    this.keyframes++;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  push(n: number): void {
    this.#cb?.('audio', OPUS, Buffer.from([n]));
  }
}

test('publisher links: packets only from the current link, stale links closed, token refusals fatal', async () => {
  const subs: FakeSubscription[] = [];
  const refuse = new Map<number, Error>();
  const source = {
    async subscribe(publisher: number): Promise<MediaSubscription> {
      const e = refuse.get(publisher);
      if (e) throw e;
      const s = new FakeSubscription();
      subs.push(s);
      return s;
    },
  };
  const packets: string[] = [];
  const refused: string[] = [];
  const failed: string[] = [];
  const links = new PublisherLinks(source, {
    onPacket: (uid, _kind, _track, packet) => packets.push(`${uid}:${packet[0]}`),
    onRefused: (e) => refused.push(e.code),
    onFailed: (uid) => failed.push(uid),
  });

  links.connect('1', ['audio']);
  assert.deepEqual([...links.kinds()], [['1', ['audio']]], 'known while connecting');
  await settle(1);
  subs[0]!.push(1);
  links.requestKeyframe('1');
  assert.equal(subs[0]!.keyframes, 1);

  // Replaced (kinds changed): the old link's packets are ignored and it is closed.
  const dropped = links.drop('1');
  links.connect('1', ['audio', 'video']);
  await dropped;
  await settle(1);
  subs[0]!.push(2);
  subs[1]!.push(3);
  assert.equal(subs[0]!.closed, true);
  assert.deepEqual(packets, ['1:1', '1:3']);

  refuse.set(2, new ChannelRefusal(401, 'token_expired', 'expired'));
  refuse.set(3, new ChannelRefusal(404, 'publisher_not_found', 'gone'));
  links.connect('2', ['audio']);
  links.connect('3', ['audio']);
  await settle(1);
  assert.deepEqual(refused, ['token_expired']);
  assert.deepEqual(failed, ['3']);
  assert.deepEqual([...links.kinds().keys()], ['1'], 'failed links are forgotten');

  await links.close();
  assert.equal(subs[1]!.closed, true);
  subs[1]!.push(4);
  links.connect('4', ['audio']);
  await settle(1);
  assert.equal(subs.length, 2, 'no connects after close');
  assert.deepEqual(packets, ['1:1', '1:3']);
});
