// ICE restart through WHIP/WHEP PATCH (RFC 9725 section 4.3.2): a publisher and a viewer whose network changes (the
// relay in front of the node rebinds, as a NAT or a phone changing networks does) restart ICE and go on in the same
// sessions. In-process node and werift peers; the relay is the impairment harness's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { RtpHeader, RtpPacket } from 'werift';
import { whepSubscribe, whipPublish } from './index.ts';
import { startNodeBehindRelay } from '../impairment/testing/index.ts';
import { TEST_CUSTOMER_AUTH } from '../testing/index.ts';
import { readSse, type SseReader } from './testing/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

test('ICE restart: after a change of network a publisher and a viewer restart ICE by PATCH and go on in the same sessions', async () => {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 5 });
  const cname = 'ice-restart';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
  let timer: NodeJS.Timeout | undefined;
  let watch: SseReader | undefined;
  try {
    await pub.ready;
    let n = 0;
    // VP8 packets, each a whole keyframe (descriptor S=1, P bit 0), 30 a second.
    timer = setInterval(() => {
      const payload = Buffer.alloc(200);
      Buffer.from([0x10, 0x00]).copy(payload);
      const header = new RtpHeader({ payloadType: 96, sequenceNumber: n & 0xffff, timestamp: (n * 3000) >>> 0, marker: true });
      pub.video!.writeRtp(new RtpPacket(header, payload));
      n++;
    }, 33);
    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2), kinds: ['video'] });
    try {
      await sub.ready;
      await sub.waitFor(() => sub.counts.video >= 30, 20_000, '30 packets before the change');
      // Membership changes from here on: a restart must not show as anyone leaving.
      watch = await readSse(`${base}/events`, { authorization: TEST_CUSTOMER_AUTH });

      await relay.rebind();
      // Both peers now reach the node from new addresses; the node still sends to the old ones, which are gone.
      const atChange = sub.counts.video;
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(sub.counts.video - atChange <= 10, `the viewer gets (almost) nothing on the old path (${sub.counts.video - atChange} packets)`);

      const pubDownBefore = relay.counters.downstream.packetsOut;
      await pub.restartIce();
      await sub.restartIce();
      const afterRestart = sub.counts.video;
      await sub.waitFor(() => sub.counts.video >= afterRestart + 60, 20_000, '60 packets after the restart');
      assert.ok(relay.counters.downstream.packetsOut > pubDownBefore, 'the node answers on the new paths');
      assert.equal(pub.pc.connectionState, 'connected');
      assert.equal(sub.pc.connectionState, 'connected');

      // The same sessions: the channel still lists both, and nobody left or joined.
      const info = (await (await fetch(base, { headers: { authorization: TEST_CUSTOMER_AUTH } })).json()) as unknown;
      assert.match(JSON.stringify(info), /"uid":1\b/, `the publisher is listed: ${JSON.stringify(info)}`);
      assert.deepEqual(
        watch.messages.filter((m) => m.event === 'leave' || m.event === 'join'),
        [],
        'nobody left or joined',
      );
    } finally {
      await sub.close();
    }
  } finally {
    watch?.close();
    clearInterval(timer);
    await pub.close();
    await close();
  }
});

test('ICE restart: a fragment without new credentials is refused with the field named; an unknown session is 404', async () => {
  const { server: s, close } = await startNodeBehindRelay({ seed: 6 });
  const cname = 'ice-restart-bad';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
  try {
    await pub.ready;
    const patch = (body: string, location = pub.location) =>
      fetch(location, { method: 'PATCH', headers: { 'content-type': 'application/trickle-ice-sdpfrag', 'if-match': '*' }, body });
    const missing = await patch('a=mid:0\r\n');
    assert.equal(missing.status, 400);
    assert.deepEqual(await missing.json(), { error: 'bad_sdp', reason: 'an ICE restart needs a=ice-ufrag and a=ice-pwd in the fragment' });
    const offer = pub.pc.localDescription!.sdp;
    const ufrag = /a=ice-ufrag:(\S+)/.exec(offer)![1]!;
    const pwd = /a=ice-pwd:(\S+)/.exec(offer)![1]!;
    const same = await patch(`a=ice-ufrag:${ufrag}\r\na=ice-pwd:${pwd}\r\n`);
    assert.equal(same.status, 400);
    assert.match(((await same.json()) as { reason: string }).reason, /new a=ice-ufrag and a=ice-pwd/);
    const short = await patch('a=ice-ufrag:ab\r\na=ice-pwd:short\r\n');
    assert.equal(short.status, 400);
    assert.match(((await short.json()) as { reason: string }).reason, /at least 4 characters/);
    const gone = await patch(`a=ice-ufrag:abcd\r\na=ice-pwd:${'x'.repeat(22)}\r\n`, pub.location.replace(/[^/]+$/, 'nosuchsession'));
    assert.equal(gone.status, 404);
    assert.equal(((await gone.json()) as { error: string }).error, 'session_not_found');
    // The session is untouched by the refusals.
    assert.equal(pub.pc.connectionState, 'connected');
  } finally {
    await pub.close();
    await close();
  }
});
