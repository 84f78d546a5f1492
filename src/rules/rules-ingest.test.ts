// A rule records an OBS-like RTMP source with no client call: the push starts the recording, the recording ends
// once the source has gone for maxIdleTime.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { obsLike } from '../ingress/testing.ts';
import { parseUserFileName, FFMPEG_BIN } from '../media/index.ts';
import { spawnChild } from '../process/index.ts';
import { APP, AUTH, startHarness, storageConfig } from '../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../recorders/individual/testing/media-checks.ts';
import { waitUntil } from '../testing/index.ts';

interface Run {
  cname: string;
  state: string;
  resourceId: string | null;
  sid: string | null;
}

test('a rule records a channel when an RTMP source starts and the recording ends after the source stops; no client call', async (t) => {
  const h = await startHarness({ env: { REELTIME_INGRESS_RTMP_PORT: '0' }, recording: { individualSliceSeconds: 3 } });
  t.after(() => h.close());
  const rule = await h.api('POST', `/v1/apps/${APP}/recording-rules`, {
    cname: 'obs-*',
    mode: 'individual',
    clientRequest: { storageConfig: storageConfig(), recordingConfig: { channelType: 0, subscribeUidGroup: 0, maxIdleTime: 5 }, recordingFileConfig: { avFileType: ['hls'] } },
  });
  assert.equal(rule.status, 201, JSON.stringify(rule.body));
  const ingress = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname: 'obs-stage', uid: '4242', kind: 'rtmp' });
  assert.equal(ingress.status, 201, JSON.stringify(ingress.body));
  const pushUrl = (ingress.body as { push: { url: string } }).push.url;

  const push = spawnChild(FFMPEG_BIN, obsLike(pushUrl), { stdio: 'ignore' });
  t.after(() => push.kill('SIGKILL'));
  const run = await waitUntil(
    async () => {
      const r = await h.api('GET', `/v1/apps/${APP}/recording-rules/${String(rule.body.ruleId)}`);
      return (r.body.recordings as Run[] | undefined)?.find((x) => x.cname === 'obs-stage' && x.state === 'recording');
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'the rule recording obs-stage' },
  );
  await waitUntil(
    () => bucketKeys(h.bucketDir).some((k) => k.includes(run.sid!) && parseUserFileName(k.split('/').pop()!)?.uid === '4242' && k.endsWith('.ts')),
    { timeoutMs: 60_000, intervalMs: 250, what: 'a slice of the ingress uid in the bucket' },
  );

  push.kill('SIGKILL');
  const query = () =>
    fetch(`${h.server.url}/v1/apps/${APP}/cloud_recording/resourceid/${encodeURIComponent(run.resourceId!)}/sid/${run.sid}/mode/individual/query`, { headers: { authorization: AUTH } });
  await waitUntil(async () => (await query()).status === 404, { timeoutMs: 60_000, intervalMs: 500, what: 'the recording to end after the source left' });
  assert.ok(h.events.some((e) => e.payload.sid === run.sid), "the rule's session sent webhooks");
});
