import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer, TEST_CUSTOMER_AUTH, waitUntil } from '../../testing/index.ts';
import { whepSubscribe, whipPublish } from '../client/index.ts';
import type { ChannelEvent } from './types.ts';
import type { ChannelModule } from '../module.ts';
import { Membership } from './membership.ts';
import { readSse } from '../testing/sse.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);
const basic = TEST_CUSTOMER_AUTH;
const root = new URL('../../../', import.meta.url).pathname;

test('membership: profile set by the first joiner, uid rules, events in order, empty channel forgets its profile', () => {
  let now = 1000;
  const m = new Membership(() => now);
  const events: ChannelEvent[] = [];
  m.subscribe((e) => events.push(e));
  const pub = m.reservePublish('a', 'c', 1, 'live');
  assert.throws(() => m.reservePublish('a', 'c', 1, 'live'), /uid_taken/);
  pub.commit([{ kind: 'video', codec: 'video/vp8' }]);
  assert.throws(() => m.reserveSubscribe('a', 'c', 2, 1, 'communication'), /profile_mismatch/);
  assert.throws(() => m.reserveSubscribe('a', 'c', 2, 9, 'live'), /publisher_not_found/);
  now = 2000;
  const sub = m.reserveSubscribe('a', 'c', 2, 1, 'live');
  sub.commit();
  const snap = m.snapshot('a', 'c');
  assert.equal(snap.profile, 'live');
  assert.deepEqual(
    snap.participants.map((p) => [p.uid, p.role, p.tracks.length, p.subscribedTo]),
    [
      [1, 'host', 1, []],
      [2, 'audience', 0, [1]],
    ],
  );
  m.endPublish('a', 'c', 1, 'deleted');
  m.endSubscribe('a', 'c', 2, 1, 'publisher_left');
  assert.deepEqual(
    events.map((e) => `${e.kind}:${e.uid}:${e.role}${e.reason ? ':' + e.reason : ''}`),
    ['join:1:host', 'publish:1:host', 'join:2:audience', 'unpublish:1:host:deleted', 'leave:1:host:deleted', 'leave:2:audience:publisher_left'],
  );
  assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1]!.seq));
  assert.equal(m.snapshot('a', 'c').profile, undefined);
  m.reservePublish('a', 'c', 1, 'communication').commit([]);
  assert.equal(m.snapshot('a', 'c').profile, 'communication');
});

test('HTTP: membership snapshot and SSE events in order (join, publish, join, leave, unpublish, leave)', async () => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000 } } });
  const cname = 'members';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const sse = await readSse(`${base}/events`, { authorization: basic });
  try {
    const pub = await whipPublish({ endpoint: `${base}/whip?uid=11&profile=live`, token: tok(cname, 11) });
    await pub.ready;
    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=22&publisher=11&profile=live`, token: tok(cname, 22, 2) });
    await sub.ready;
    const snap = (await (await fetch(base, { headers: { authorization: basic } })).json()) as {
      profile: string;
      participants: { uid: number; role: string; tracks: { kind: string; codec: string }[]; joinedAt: number }[];
    };
    assert.equal(snap.profile, 'live');
    assert.deepEqual(
      snap.participants.map((p) => [p.uid, p.role, p.tracks]),
      [
        [11, 'host', [{ kind: 'audio', codec: 'audio/opus' }, { kind: 'video', codec: 'video/vp8' }]],
        [22, 'audience', []],
      ],
    );
    assert.ok(snap.participants.every((p) => Math.abs(p.joinedAt - Date.now()) < 60000));
    // A participant token may read too (EventSource style: token and uid in the query).
    const viaToken = await fetch(`${base}?uid=22&token=${encodeURIComponent(tok(cname, 22, 2))}`);
    assert.equal(viaToken.status, 200);
    const anonymous = await fetch(base);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { error: string }).error, 'token_missing');

    await sub.close();
    await pub.close();
    await sse.waitFor((m) => m.filter((x) => x.event === 'leave').length === 2);
    assert.deepEqual(
      sse.messages.map((m) => (m.event === 'snapshot' ? 'snapshot' : `${m.event}:${(m.data as ChannelEvent).uid}`)),
      ['snapshot', 'join:11', 'publish:11', 'join:22', 'leave:22', 'unpublish:11', 'leave:11'],
    );
    const publish = sse.messages.find((m) => m.event === 'publish')!.data as ChannelEvent;
    assert.deepEqual(publish.tracks.map((t) => t.kind), ['audio', 'video']);
    const after = (await (await fetch(base, { headers: { authorization: basic } })).json()) as { exists: boolean };
    assert.equal(after.exists, false);
  } finally {
    sse.close();
    await s.close();
  }
});

test('a killed publisher process (SIGKILL) is removed once the idle timeout passes, and so are its subscribers', async () => {
  const idleTimeoutMs = 2000;
  // Idle timers run on a manual clock: a slow join on a busy machine cannot time anyone out early, and the
  // timeout passes exactly when the test says so, after the publisher's process is gone.
  const clock = new ManualClock(Date.now());
  const s = await startTestServer({ clock, values: { channel: { idleTimeoutMs } } });
  const channel = s.modules.find((m) => m.name === 'channel') as ChannelModule;
  const cname = 'killed';
  const events: ChannelEvent[] = [];
  channel.onEvent((e) => events.push(e));
  const child = spawn(
    process.execPath,
    [`${root}bin/reeltime.mjs`, 'publish', '--server', s.url, '--channel', cname, '--uid', '5', '--seconds', '120'],
    {
      env: { ...process.env, REELTIME_DATA_DIR: s.dataDir, REELTIME_APP_ID: APP, REELTIME_APP_CERTIFICATE: CERT },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so SIGKILL reaches ffmpeg too (a dead machine, not a polite exit).
      detached: true,
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let sub: Awaited<ReturnType<typeof whepSubscribe>> | undefined;
  try {
    await waitUntil(() => events.some((e) => e.kind === 'publish' && e.uid === 5), {
      timeoutMs: 30_000,
      what: () => `the publisher to join (CLI output: ${out})`,
    });
    sub = await whepSubscribe({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=6&publisher=5`, token: tok(cname, 6, 2) });
    const viewer = sub;
    await viewer.waitFor(() => viewer.counts.video > 10, 30000, 'video from the CLI publisher');
    assert.deepEqual(events.filter((e) => e.kind === 'leave'), [], 'nobody timed out while the clock stood still');
    killGroup(child.pid);
    await exited;
    clock.advance(idleTimeoutMs);
    await waitUntil(() => events.some((e) => e.kind === 'leave' && e.uid === 6), { timeoutMs: 10_000, what: 'the subscriber to leave' });
    assert.deepEqual(
      events.filter((e) => e.kind === 'leave').map((e) => [e.uid, e.reason]),
      [
        [5, 'timeout'],
        [6, 'publisher_left'],
      ],
    );
    assert.deepEqual(channel.snapshot(APP, cname).participants, []);
  } finally {
    killGroup(child.pid);
    await sub?.close().catch(() => undefined);
    await s.close();
  }
});

function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

test('membership: one uid with WHEP sessions to several publishers is one participant (one join, one leave)', () => {
  const m = new Membership(() => 1);
  const events: string[] = [];
  m.subscribe((e) => events.push(`${e.kind}:${e.uid}`));
  m.reservePublish('a', 'c', 1, 'communication').commit([{ kind: 'audio', codec: 'audio/opus' }]);
  m.reservePublish('a', 'c', 3, 'communication').commit([{ kind: 'audio', codec: 'audio/opus' }]);
  m.reserveSubscribe('a', 'c', 9, 1, 'communication').commit();
  m.reserveSubscribe('a', 'c', 9, 3, 'communication').commit();
  assert.throws(() => m.reserveSubscribe('a', 'c', 9, 3, 'communication'), /uid_taken/);
  assert.deepEqual(m.snapshot('a', 'c').participants.find((p) => p.uid === 9)!.subscribedTo, [1, 3]);
  m.endSubscribe('a', 'c', 9, 1, 'deleted');
  assert.ok(m.snapshot('a', 'c').participants.some((p) => p.uid === 9));
  m.endSubscribe('a', 'c', 9, 3, 'deleted');
  assert.deepEqual(events, ['join:1', 'publish:1', 'join:3', 'publish:3', 'join:9', 'leave:9']);
  // A cancelled reservation (failed negotiation) leaves no trace.
  m.reservePublish('a', 'c', 5, 'communication').cancel();
  assert.ok(!m.snapshot('a', 'c').participants.some((p) => p.uid === 5));
});
