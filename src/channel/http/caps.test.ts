import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer, TEST_CUSTOMER_AUTH } from '../../testing/index.ts';
import { readSse, type SseMessage } from '../testing/index.ts';
import { whepSubscribe, whipPublish, WhipHttpError, type WhipPublisher } from '../client/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
type Leave = { readonly uid: number; readonly reason?: string };
const CUSTOMER = TEST_CUSTOMER_AUTH;
/** uid 0 is the wildcard: the token admits any uid. */
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

async function refused(p: Promise<unknown>, code: string, setting: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof WhipHttpError, String(e));
    assert.equal(e.status, 429);
    assert.equal(e.code, code);
    assert.match(e.reason, setting);
    return true;
  });
}

test('session caps: per token, per channel and per address, 429 with Retry-After and a JSON body; a slot frees when a session ends', async () => {
  const s = await startTestServer({
    values: { channel: { idleTimeoutMs: 60000, maxSessionsPerToken: 2, maxSessionsPerChannel: 3, maxSessionsPerAddress: 4, trustedAddresses: [] } },
  });
  const whip = (cname: string, uid: number, token: string) => whipPublish({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whip?uid=${uid}`, token });
  const open: WhipPublisher[] = [];
  try {
    const wildcard = tok('capA', 0);
    open.push(await whip('capA', 1, wildcard), await whip('capA', 2, wildcard));
    await refused(whip('capA', 3, wildcard), 'too_many_sessions', /this token already holds 2 .*channel\.maxSessionsPerToken/);

    open.push(await whip('capA', 3, tok('capA', 3)));
    await refused(whip('capA', 4, tok('capA', 4)), 'too_many_sessions', /this channel already holds 3 .*channel\.maxSessionsPerChannel/);

    open.push(await whip('capB', 5, tok('capB', 5)));
    await refused(whip('capB', 6, tok('capB', 6)), 'too_many_sessions', /this client address already holds 4 .*channel\.maxSessionsPerAddress/);
    // WHEP sessions count the same way.
    await refused(
      whepSubscribe({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/capB/whep?uid=7&publisher=5`, token: tok('capB', 7, 2) }),
      'too_many_sessions',
      /maxSessionsPerAddress/,
    );

    // What a client sees on the wire: 429, Retry-After (the idle timeout), the channel API's error body.
    const res = await fetch(`${s.url}/rtc/v1/apps/${APP}/channels/capB/whip?uid=6`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${tok('capB', 6)}` },
      body: await offerSdp(),
    });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '60');
    const body = (await res.json()) as { error: string; reason: string };
    assert.equal(body.error, 'too_many_sessions');
    assert.equal(typeof body.reason, 'string');

    // Ending a session frees its slot under every cap it counted in.
    await open.shift()!.close();
    open.push(await whip('capA', 1, wildcard));
  } finally {
    await Promise.all(open.map((p) => p.close().catch(() => undefined)));
    await s.close();
  }
});

test('session caps: the trusted addresses (loopback by default: recorders, benchmarks) are not capped per address', async () => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000, maxSessionsPerAddress: 1 } } });
  const open: WhipPublisher[] = [];
  try {
    for (const uid of [1, 2, 3]) {
      open.push(await whipPublish({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/trusted/whip?uid=${uid}`, token: tok('trusted', uid) }));
    }
    const snap = (await (await fetch(`${s.url}/rtc/v1/apps/${APP}/channels/trusted`, { headers: { authorization: CUSTOMER } })).json()) as {
      participants: unknown[];
    };
    assert.equal(snap.participants.length, 3);
  } finally {
    await Promise.all(open.map((p) => p.close().catch(() => undefined)));
    await s.close();
  }
});

test('event stream caps: per token and per address, 429 with Retry-After; a closed stream frees its slot', async () => {
  const s = await startTestServer({
    values: { channel: { idleTimeoutMs: 5000, maxEventStreamsPerToken: 1, maxEventStreamsPerAddress: 2, trustedAddresses: [] } },
  });
  const events = (uid: number, token: string) => `${s.url}/rtc/v1/apps/${APP}/channels/sse/events?uid=${uid}&token=${encodeURIComponent(token)}`;
  const streams: AbortController[] = [];
  const openStream = async (url: string, headers: Record<string, string> = {}) => {
    const ctl = new AbortController();
    const res = await fetch(url, { headers, signal: ctl.signal });
    if (res.status === 200) streams.push(ctl);
    else await res.body?.cancel();
    return res;
  };
  const expect429 = async (res: Response, setting: RegExp) => {
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '5');
    const body = (await res.json()) as { error: string; reason: string };
    assert.equal(body.error, 'too_many_streams');
    assert.match(body.reason, setting);
  };
  try {
    const t1 = tok('sse', 1, 2);
    assert.equal((await openStream(events(1, t1))).status, 200);
    const again = await fetch(events(1, t1));
    await expect429(again, /this token already holds 1 .*channel\.maxEventStreamsPerToken/);
    assert.equal((await openStream(events(2, tok('sse', 2, 2)))).status, 200);
    await expect429(await fetch(events(3, tok('sse', 3, 2))), /this client address already holds 2 .*channel\.maxEventStreamsPerAddress/);
    // The customer's own streams count per address too.
    await expect429(await fetch(`${s.url}/rtc/v1/apps/${APP}/track-stats`, { headers: { authorization: CUSTOMER } }), /maxEventStreamsPerAddress/);

    streams.shift()!.abort();
    // The server notices the close on its own time: retry until the slot is free.
    let res: Response | undefined;
    for (let i = 0; i < 250 && res?.status !== 200; i++) {
      if (res) await new Promise((r) => setTimeout(r, 20));
      res = await openStream(events(3, tok('sse', 3, 2)));
    }
    assert.equal(res?.status, 200);
  } finally {
    for (const c of streams) c.abort();
    await s.close();
  }
});

/** A werift offer to send by hand (the raw 429 above). */
async function offerSdp(): Promise<string> {
  const { RTCPeerConnection } = await import('werift');
  const pc = new RTCPeerConnection({});
  pc.addTransceiver('audio', { direction: 'sendonly' });
  const offer = await pc.createOffer();
  await pc.close();
  return offer.sdp;
}


test('token expiry (ManualClock): an event stream, a WHEP and a WHIP session end when their token does; a trusted client keeps its session', async () => {
  const clock = new ManualClock(Date.now());
  // Token and privilege expire `sec` seconds of the manual clock from now.
  const expiring = (cname: string, uid: number, sec: number, role: 1 | 2 = 1) =>
    buildRtcTokenWithUid(APP, CERT, cname, uid, role, sec, sec, { issueTs: Math.floor(clock.now() / 1000) });
  // The idle timeout is far beyond the tokens, so only expiry ends anything.
  const s = await startTestServer({ clock, values: { channel: { idleTimeoutMs: 3_600_000, trustedAddresses: [] } } });
  const trustedServer = await startTestServer({ clock, values: { channel: { idleTimeoutMs: 3_600_000 } } });
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/exp`;
  const open: { close(): Promise<void> }[] = [];
  try {
    const watch = await readSse(`${base}/events`, { authorization: CUSTOMER });
    const streamToken = expiring('exp', 9, 30, 2);
    const byToken = await fetch(`${base}/events?uid=9&token=${encodeURIComponent(streamToken)}`);
    assert.equal(byToken.status, 200);
    const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: expiring('exp', 1, 120) });
    open.push(pub);
    const viewer = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: expiring('exp', 2, 60, 2) });
    open.push(viewer);
    await watch.waitFor((m) => m.some((e) => e.event === 'join' && (e.data as Leave).uid === 2));
    const leaveOf = (uid: number) => (m: readonly SseMessage[]) => m.find((e) => e.event === 'leave' && (e.data as Leave).uid === uid);

    clock.advance(30_000);
    // The stream read with the 30-s token says why and ends (text() resolves only at its end).
    const text = await byToken.text();
    assert.match(text, /event: token_expired\ndata: \{"error":"token_expired"/);
    const reconnect = await fetch(`${base}/events?uid=9&token=${encodeURIComponent(streamToken)}`);
    assert.equal(reconnect.status, 401);
    assert.equal(((await reconnect.json()) as { error: string }).error, 'token_expired');

    clock.advance(30_000);
    await watch.waitFor((m) => leaveOf(2)(m) !== undefined);
    assert.equal((leaveOf(2)(watch.messages)!.data as Leave).reason, 'token_expired');
    assert.equal((watch.messages.find((e) => e.event === 'leave')!.data as Leave).uid, 2, 'the publisher is still there');

    clock.advance(60_000);
    await watch.waitFor((m) => leaveOf(1)(m) !== undefined);
    assert.equal((leaveOf(1)(watch.messages)!.data as Leave).reason, 'token_expired');
    watch.close();

    // From a trusted address (loopback by default: a recorder's WHEP) the session outlives its token.
    const kept = await whipPublish({ endpoint: `${trustedServer.url}/rtc/v1/apps/${APP}/channels/exp/whip?uid=1`, token: expiring('exp', 1, 10) });
    open.push(kept);
    clock.advance(60_000);
    const snap = (await (await fetch(`${trustedServer.url}/rtc/v1/apps/${APP}/channels/exp`, { headers: { authorization: CUSTOMER } })).json()) as {
      participants: { uid: number }[];
    };
    assert.deepEqual(
      snap.participants.map((p) => p.uid),
      [1],
    );
  } finally {
    await Promise.all(open.map((p) => p.close().catch(() => undefined)));
    await s.close();
    await trustedServer.close();
  }
});
