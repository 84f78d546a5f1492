import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { whepSubscribe, whipPublish } from '../channel/index.ts';
import { feedVp8Keyframes } from '../channel/testing/index.ts';
import { waitUntil } from '../testing/index.ts';
import { startNodeBehindRelay } from './testing/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

test('impairment relay in front of a channel node: 5 % loss on the publisher uplink is dropped there, a WHEP viewer still gets the media', async () => {
  // The node binds nodeMin.. and announces nodeMin + offset..: the relay's ports, so every peer's ICE, DTLS and
  // media goes peer → relay → node.
  const { server: s, relay, close } = await startNodeBehindRelay({ upstream: { loss: 0.05 }, seed: 27 });
  const cname = 'lossy-uplink';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
  let stopFeed: (() => void) | undefined;
  try {
    await pub.ready;
    stopFeed = feedVp8Keyframes(pub.video!, { perSecond: 30, bytes: 200 });
    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2), kinds: ['video'] });
    try {
      await sub.ready;
      const up = relay.counters.upstream;
      await waitUntil(() => sub.counts.video >= 150 && up.dropped.random >= 5, {
        what: () => `viewer packets (${sub.counts.video}) and uplink drops (${JSON.stringify(relay.counters)})`,
        timeoutMs: 30_000,
      });
      assert.ok(up.packetsIn >= 150, 'the publisher’s media went through the relay');
      assert.ok(relay.counters.downstream.packetsOut > 0, 'the node answered through the relay');
      assert.equal(up.packetsOut + up.dropped.random, up.packetsIn);
      assert.ok(up.dropped.random / up.packetsIn < 0.15, `drop share ${up.dropped.random}/${up.packetsIn}`);
    } finally {
      await sub.close();
    }
  } finally {
    stopFeed?.();
    await pub.close();
    await close();
  }
});
