// A publisher and a viewer behind a NAT that rebinds (the relay in front of the node: new addresses, the old ones
// gone): the node follows their checks to the new addresses; an ICE restart through WHIP/WHEP PATCH (RFC 9725
// section 4.3.2) gives both new credentials; the sessions go on. In-process node and werift peers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { createSocket, type Socket } from 'node:dgram';
import { classes, Message, methods } from 'werift';
import { whepSubscribe, whipPublish } from './index.ts';
import type { ImpairmentRelay } from '../impairment/index.ts';
import { startNodeBehindRelay } from '../impairment/testing/index.ts';
import { TEST_CUSTOMER_AUTH, waitUntil } from '../testing/index.ts';
import { feedVp8Keyframes, readSse, type SseReader } from './testing/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

test('a NAT rebinding is followed by the node; an ICE restart by PATCH gives new credentials; both keep the same sessions', async (t) => {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 5 });
  const cname = 'ice-restart';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
  let stopFeed: (() => void) | undefined;
  let watch: SseReader | undefined;
  try {
    await pub.ready;
    stopFeed = feedVp8Keyframes(pub.video!, { perSecond: 30, bytes: 200 });
    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2), kinds: ['video'] });
    try {
      await sub.ready;
      await sub.waitFor(() => sub.counts.video >= 30, 20_000, '30 packets before the change');
      // Membership changes from here on: a restart must not show as anyone leaving.
      watch = await readSse(`${base}/events`, { authorization: TEST_CUSTOMER_AUTH });

      // A NAT rebinding: both peers now reach the node from new addresses, the old ones are gone. Their next checks
      // with USE-CANDIDATE (werift sends one with each consent check, every ~5 s) move the node's sends there.
      await relay.rebind();
      const rebound = sub.counts.video;
      const reboundAt = Date.now();
      await sub.waitFor(() => sub.counts.video >= rebound + 60, 20_000, '60 packets after the rebinding, without a restart');
      t.diagnostic(`rebinding → 60 packets at the viewer's new address: ${Date.now() - reboundAt} ms`);

      // A restart: new credentials both ways, a new pair, the same sessions.
      const nodeUfrag = () => sub.pc.iceTransports[0]!.connection.remoteUsername;
      const before = nodeUfrag();
      await pub.restartIce();
      await sub.restartIce();
      assert.notEqual(nodeUfrag(), before, "the node's new credentials are in use");
      const afterRestart = sub.counts.video;
      await sub.waitFor(() => sub.counts.video >= afterRestart + 60, 20_000, '60 packets after the restart');
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
    stopFeed?.();
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

type Viewer = Awaited<ReturnType<typeof whepSubscribe>>;

/**
 * A node behind a relay, a publisher fed VP8 keyframes and a WHEP viewer that has got 30 packets, and an attacker's
 * loopback socket (what it receives in `got`): `run`, then everything closed.
 */
async function withFedViewer(
  seed: number,
  cname: string,
  run: (f: { sub: Viewer; relay: ImpairmentRelay; attacker: Socket; got: Buffer[] }) => Promise<void>,
): Promise<void> {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed });
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
  const attacker = createSocket('udp4');
  let stopFeed: (() => void) | undefined;
  try {
    await pub.ready;
    stopFeed = feedVp8Keyframes(pub.video!, { perSecond: 30, bytes: 200 });
    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2), kinds: ['video'] });
    try {
      await sub.ready;
      await sub.waitFor(() => sub.counts.video >= 30, 20_000, '30 packets');
      await new Promise<void>((resolve) => attacker.bind({ address: '127.0.0.1', port: 0 }, resolve));
      const got: Buffer[] = [];
      attacker.on('message', (d) => got.push(d));
      await run({ sub, relay, attacker, got });
    } finally {
      await sub.close();
    }
  } finally {
    stopFeed?.();
    attacker.close();
    await pub.close();
    await close();
  }
}

/** A binding request as an ICE check: USERNAME, PRIORITY, a role with its tie-breaker, USE-CANDIDATE, signed with `key`. */
const iceCheck = (username: string, key: string, role: 'ICE-CONTROLLING' | 'ICE-CONTROLLED', tieBreaker: bigint): Buffer =>
  new Message(methods.BINDING, classes.REQUEST)
    .setAttribute('USERNAME', username)
    .setAttribute('PRIORITY', 1853824767)
    .setAttribute(role, tieBreaker)
    .setAttribute('USE-CANDIDATE', null)
    .addMessageIntegrity(Buffer.from(key, 'utf8'))
    .addFingerprint().bytes;

const sdpValue = (sdp: string, re: RegExp): string => re.exec(sdp)![1]!;
const HOST_PORT = /a=candidate:\S+ \d+ udp \d+ 127\.0\.0\.1 (\d+) typ host/i;

test("a forged check from another address is dropped unanswered; only one with the node's ICE password (MESSAGE-INTEGRITY) moves its sends", async () => {
  await withFedViewer(7, 'ice-forged', async ({ sub, relay, attacker, got }) => {
    // What anyone on the path can read: both usernames (in every check) and the node's port.
    const answer = sub.pc.remoteDescription!.sdp;
    const username = `${sdpValue(answer, /a=ice-ufrag:(\S+)/)}:${sdpValue(sub.pc.localDescription!.sdp, /a=ice-ufrag:(\S+)/)}`;
    const port = Number(sdpValue(answer, HOST_PORT));
    const burst = (key: string) => {
      for (let i = 0; i < 3; i++) attacker.send(iceCheck(username, key, 'ICE-CONTROLLING', 1n), port, '127.0.0.1');
    };
    const media = () => got.filter((d) => d[0]! >= 128 && d[0]! < 192).length;
    burst('a-guessed-password-xxxx');
    const atForgery = sub.counts.video;
    await sub.waitFor(() => sub.counts.video >= atForgery + 45, 10_000, 'the viewer still getting media after a check with a wrong password');
    assert.deepEqual(got, [], 'a check with a wrong password is not even answered');
    // The control: the same check with the node's password does move the node's sends (to the attacker here).
    burst(sdpValue(answer, /a=ice-pwd:(\S+)/));
    await waitUntil(() => media() > 0, { what: 'media at the address with the right password', timeoutMs: 10_000 });
    assert.ok(relay.counters.upstream.packetsIn > 0);
  });
});

test('a client peer (a WHEP viewer, as a recorder links) drops a forged check unanswered: no role flip by a larger tie-breaker; one with its own ICE password is answered', async () => {
  await withFedViewer(9, 'ice-forged-client', async ({ sub, attacker, got }) => {
    // The viewer's side, as anyone on its path reads it: its port and both usernames; its password for the control.
    const offer = sub.pc.localDescription!.sdp;
    const username = `${sdpValue(offer, /a=ice-ufrag:(\S+)/)}:${sdpValue(sub.pc.remoteDescription!.sdp, /a=ice-ufrag:(\S+)/)}`;
    const port = Number(sdpValue(offer, HOST_PORT));
    const conn = sub.pc.iceTransports[0]!.connection as unknown as { iceControlling: boolean };
    assert.equal(conn.iceControlling, true, 'a client facing an ICE-lite node controls');
    const answered = () => got.some((d) => d.length >= 20 && d[0]! <= 1);
    for (let i = 0; i < 3; i++) attacker.send(iceCheck(username, 'a-guessed-password-xxxx', 'ICE-CONTROLLING', 0xffff_ffff_ffff_ffffn), port, '127.0.0.1');
    const atForgery = sub.counts.video;
    await sub.waitFor(() => sub.counts.video >= atForgery + 45, 10_000, 'the viewer still getting media after the forged checks');
    assert.deepEqual(got, [], 'a check with a wrong password is not even answered');
    assert.equal(conn.iceControlling, true, 'its role did not flip');
    // The control: the same kind of check with the viewer's own password is answered.
    attacker.send(iceCheck(username, sdpValue(offer, /a=ice-pwd:(\S+)/), 'ICE-CONTROLLED', 1n), port, '127.0.0.1');
    await waitUntil(answered, { what: 'an answer to the check with the right password', timeoutMs: 10_000 });
  });
});
