// /metrics over real HTTP: after a real publish and a short individual recording the counters of every module have
// moved; the access rule (loopback only, or a bearer token); each role reports only its own modules.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { rtcToken, startHarness, storageConfig } from '../recorders/individual/testing/harness.ts';
import type { Role } from '../server/index.ts';
import { startTestServer, type TestServer, waitUntil } from '../testing/index.ts';
import { createMetricsRegistry, decideMetricsAccess } from './index.ts';
import { parseExposition, scrape } from './testing.ts';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

test('access: a token opens any address (401 without, 403 wrong); without one, loopback peers only and no proxied requests', () => {
  const token = { kind: 'token', token: 'scrape-token-0123456789' } as const;
  const from = (remoteAddress: string, authorization?: string, forwarded = false) => ({ remoteAddress, authorization, forwarded });
  assert.deepEqual(decideMetricsAccess(token, from('203.0.113.9', 'Bearer scrape-token-0123456789')), { ok: true });
  assert.equal(decideMetricsAccess(token, from('127.0.0.1')).ok, false);
  assert.deepEqual(
    [decideMetricsAccess(token, from('127.0.0.1')), decideMetricsAccess(token, from('127.0.0.1', 'Bearer nope'))].map((d) => (d.ok ? 200 : d.status)),
    [401, 403],
  );
  const loopback = { kind: 'loopback' } as const;
  for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.equal(decideMetricsAccess(loopback, from(a)).ok, true, a);
  for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '203.0.113.9', 'fe80::1', '']) assert.equal(decideMetricsAccess(loopback, from(a)).ok, false, a);
  const proxied = decideMetricsAccess(loopback, from('127.0.0.1', undefined, true));
  assert.ok(!proxied.ok && proxied.status === 403 && /REELTIME_METRICS_TOKEN/.test(proxied.reason));
});

test('registry: series read at scrape time; counters from running totals only grow', async () => {
  const m = createMetricsRegistry({ processMetrics: false });
  let total = 5;
  let live = [['a', 2], ['b', 3]] as [string, number][];
  m.counterFrom({ name: 'x_total', help: 'x', labelNames: ['k'] }, () => [[{ k: 'one' }, total]]);
  m.gaugeFrom({ name: 'y', help: 'y', labelNames: ['k'] }, () => live.map(([k, v]) => [{ k }, v] as const));
  const first = parseExposition((await m.scrape()).body);
  assert.equal(first.sum('x_total'), 5);
  assert.equal(first.types.get('x_total'), 'counter');
  total = 12;
  live = [['b', 7]];
  const second = parseExposition((await m.scrape()).body);
  assert.equal(second.sum('x_total', { k: 'one' }), 12);
  assert.deepEqual(second.series.filter((s) => s.name === 'y').map((s) => [s.labels.k, s.value]), [['b', 7]]);
});

test('a publish and a short individual recording move the counters of every module', { timeout: 240_000 }, async () => {
  // 4 s slices (a test-only setting): status 5 after 4 s instead of 15.
  const h = await startHarness({ recording: { individualSliceSeconds: 4 } });
  try {
    const cname = 'metrics-demo';
    const before = await scrape(h.server.url);
    assert.equal(before.sum('reeltime_rtp_packets_total'), 0);
    await h.publish({ cname, uid: 301, color: 'green', toneHz: 440, codec: 'h264' });
    const { resourceId, sid } = await h.startRecording(cname, '9301', {
      token: rtcToken(cname, 9301, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamMode: 'standard' },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    // Status 5: the first slice is in the bucket.
    await waitUntil(async () => {
      const q = await h.api('GET', h.path(resourceId, sid, 'query'));
      return q.status === 200 && (q.body.serverResponse as { status: number }).status === 5;
    }, { timeoutMs: 90_000, intervalMs: 200, what: 'status 5' });

    const live = await scrape(h.server.url);
    assert.ok(live.sum('reeltime_recorder_child_processes', { command: 'ffmpeg' }) >= 1, 'ffmpeg children while recording');
    assert.ok(live.sum('reeltime_recording_sessions', { mode: 'individual', state: 'live' }) >= 1);
    // The publisher and the recorder's subscription (the in-process tap; in the communication profile everyone is a host).
    assert.equal(live.sum('reeltime_channel_participants'), 2);
    assert.equal(live.sum('reeltime_channels'), 1);

    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9301', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.payload.details.msgName === 'session_exit'), { timeoutMs: 30_000, intervalMs: 200, what: 'session_exit webhook' });
    // Deliveries are counted once the receiver answered; give the last one a moment to be recorded.
    await waitUntil(async () => (await scrape(h.server.url)).sum('reeltime_webhook_deliveries_total', { outcome: 'delivered' }) >= h.events.length, { timeoutMs: 10_000, intervalMs: 200, what: 'deliveries counted' });

    const m = await scrape(h.server.url);
    for (const kind of ['audio', 'video']) {
      assert.ok(m.sum('reeltime_rtp_packets_total', { direction: 'in', kind }) > 50, `${kind} packets in`);
      assert.ok(m.sum('reeltime_rtp_packets_total', { direction: 'out', kind }) > 50, `${kind} packets out (to the recorder)`);
      assert.ok(m.sum('reeltime_rtp_bytes_total', { direction: 'in', kind }) > m.sum('reeltime_rtp_packets_total', { direction: 'in', kind }) * 12);
    }
    // The recorder's video subscription asked the publisher for a keyframe at least once.
    assert.ok(m.sum('reeltime_rtcp_pli_total', { direction: 'out' }) >= 1);
    assert.equal(m.types.get('reeltime_rtcp_nack_total'), 'counter');
    // Two tracks (audio, video): two playlists, and slices of each.
    assert.equal(m.sum('reeltime_recorder_streams_total', { mode: 'individual' }), 2);
    assert.ok(m.sum('reeltime_recorder_slices_total', { mode: 'individual' }) >= 2);
    assert.ok(m.sum('reeltime_recorder_child_cpu_seconds_total', { command: 'ffmpeg' }) > 0, 'ffmpeg CPU time');
    assert.ok(m.sum('reeltime_upload_duration_seconds_count', { vendor: 'local', outcome: 'uploaded' }) >= 4, 'uploads timed');
    assert.equal(m.sum('reeltime_upload_failures_total'), 0);
    assert.equal(m.sum('reeltime_spool_files'), 0);
    assert.equal(m.sum('reeltime_spool_oldest_age_seconds'), 0);
    assert.equal(m.sum('reeltime_recording_sessions', { mode: 'individual', state: 'ended' }), 1);
    assert.ok(m.sum('reeltime_webhook_delivery_duration_seconds_count', { outcome: 'delivered' }) >= 3);
    // Requests by route pattern, never by raw URL (no sid or resource id in a label).
    const startRoute = '/v1/apps/:appid/cloud_recording/resourceid/:resourceid/mode/:mode/start';
    const routes = new Set(m.series.filter((s) => s.name === 'reeltime_http_request_duration_seconds_count').map((s) => s.labels.route));
    assert.ok([...routes].some((r) => r?.toLowerCase() === startRoute), [...routes].join('\n'));
    assert.ok(![...routes].some((r) => r?.includes(sid)));
    assert.ok(m.sum('reeltime_http_request_duration_seconds_count', { method: 'POST', status: '201' }) >= 1, 'WHIP/WHEP 201s');
    assert.ok(m.sum('process_cpu_seconds_total') > 0);
  } finally {
    await h.close();
  }
});

test('with REELTIME_METRICS_TOKEN: 401 without the token, 403 with a wrong one, 200 with it', async () => {
  const token = 'metrics-token-for-tests-0123';
  const s = await startTestServer({ roles: ['api'], env: { REELTIME_METRICS_TOKEN: token } });
  servers.push(s);
  const none = await fetch(`${s.url}/metrics`);
  assert.equal(none.status, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="metrics"');
  assert.match(await none.text(), /Authorization: Bearer/);
  const wrong = await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-for-tests-XXXX' } });
  assert.equal(wrong.status, 403);
  assert.doesNotMatch(await wrong.text(), new RegExp(token));
  assert.ok((await scrape(s.url, { authorization: `Bearer ${token}` })).types.has('reeltime_http_request_duration_seconds'));
});

test('without a token: a caller from another address, or through a proxy, gets 403', async () => {
  const s = await startTestServer({ roles: ['api'] });
  servers.push(s);
  // Real HTTP from loopback is let in; the other addresses are injected (nothing here may leave loopback).
  assert.ok((await scrape(s.url)).types.size > 0);
  const remote = await s.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '192.0.2.44' });
  assert.equal(remote.statusCode, 403);
  assert.match(remote.json<{ reason: string }>().reason, /loopback/);
  const proxied = await fetch(`${s.url}/metrics`, { headers: { 'x-forwarded-for': '192.0.2.44' } });
  assert.equal(proxied.status, 403);
});

test('without a token: a request from loopback carrying any proxy header (X-Real-IP alone included) gets 403', async () => {
  const s = await startTestServer({ roles: ['api'] });
  servers.push(s);
  const headers: Record<string, string>[] = [
    { 'x-real-ip': '192.0.2.44' },
    { 'X-Client-IP': '192.0.2.44' },
    { 'true-client-ip': '192.0.2.44' },
    { 'cf-connecting-ip': '192.0.2.44' },
    { 'x-forwarded-host': 'example.com' },
    { 'x-forwarded-proto': 'https' },
    { forwarded: 'for=192.0.2.44' },
    { via: '1.1 proxy' },
  ];
  for (const h of headers) {
    const res = await fetch(`${s.url}/metrics`, { headers: h });
    assert.equal(res.status, 403, JSON.stringify(h));
    assert.doesNotMatch(await res.text(), /reeltime_http_request_duration_seconds/);
  }
  assert.equal((await fetch(`${s.url}/metrics`, { headers: { 'x-request-id': 'abc' } })).status, 200, 'other headers do not matter');
});

const OWN: Record<Role, readonly string[]> = {
  api: ['reeltime_recording_sessions'],
  recorder: ['reeltime_spool_files', 'reeltime_upload_duration_seconds', 'reeltime_recorder_slices_total', 'reeltime_recorder_child_processes'],
  channel: ['reeltime_rtp_packets_total', 'reeltime_channel_participants', 'reeltime_rtcp_pli_total', 'reeltime_ingress_publishing'],
  chat: ['reeltime_chat_connections', 'reeltime_chat_messages_total'],
};

for (const role of Object.keys(OWN) as Role[]) {
  test(`${role} role reports its modules' metrics and no other role's`, async () => {
    const s = await startTestServer({ roles: [role] });
    servers.push(s);
    const m = await scrape(s.url);
    for (const [other, names] of Object.entries(OWN)) {
      for (const n of names) assert.equal(m.types.has(n), other === role, `${role}: ${n}`);
    }
    assert.ok(m.types.has('reeltime_webhook_deliveries_total'));
    assert.ok(m.types.has('reeltime_http_request_duration_seconds'));
  });
}
