// Issue 25 items 2 and 3 at the API: in production the storage endpoint, the Azure account name, the bucket name
// and CDN push targets a request names are checked at `start` (and push targets at `update`) and refused with a
// 400 naming the field; development keeps accepting loopback targets. IP literals only: no name is resolved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer, type TestServer } from '../../testing/index.ts';
import { waitUntil } from '../../testing/index.ts';
import { recordingClient, startRequest, storage, type RecordingClient } from '../testing/client.ts';
import { allDoubles } from '../testing/recorder-double.ts';

const T0 = Date.UTC(2026, 0, 1, 12);
const PUBLIC_PAGE = 'http://93.184.216.34/page';
const NOT_PUBLIC = 'must be a public address (private, loopback and other special-purpose addresses are refused)';

async function withServer(env: 'production' | 'development', fn: (api: RecordingClient, s: TestServer) => Promise<void>): Promise<void> {
  const s = await startTestServer({
    clock: new ManualClock(T0),
    recorders: allDoubles(),
    env: { REELTIME_ENV: env },
    values: { recording: { rateLimitPerSecond: 0 } },
  });
  try {
    await fn(recordingClient(s.app), s);
  } finally {
    await s.close();
  }
}

let n = 0;
async function start(api: RecordingClient, mode: 'mix' | 'web', clientRequest: Record<string, unknown>) {
  const id = { cname: `room${++n}`, uid: '100' };
  const rid = (await api.acquire({ ...id, ...(mode === 'web' ? { clientRequest: { scene: 1 } } : {}) })).body.resourceId as string;
  return { rid, id, r: await api.start(rid, mode, { ...id, clientRequest }) };
}

const mixWith = (storageConfig: Record<string, unknown>) => ({ ...startRequest('mix'), storageConfig: { ...storage(), ...storageConfig } });

function webWith(rtmpUrl: string | undefined): Record<string, unknown> {
  const cr = startRequest('web') as { extensionServiceConfig: { extensionServices: { serviceParam: Record<string, unknown> }[] } };
  cr.extensionServiceConfig.extensionServices[0]!.serviceParam.url = PUBLIC_PAGE;
  if (rtmpUrl) {
    (cr.extensionServiceConfig.extensionServices as unknown[]).push({ serviceName: 'rtmp_publish_service', serviceParam: { outputs: [{ rtmpUrl }] } });
  }
  return cr;
}

test('production: storage endpoints, Azure account names and bucket names that reach private networks or break vendor rules are a 400 at start', async () => {
  await withServer('production', async (api) => {
    const SC = 'clientRequest.storageConfig';
    for (const endpoint of ['http://127.0.0.1:19350', 'http://[::ffff:127.0.0.1]:9000', 'http://10.0.0.8', 'https://169.254.169.254', 'http://192.0.2.10', '0x7f.1:9000']) {
      const { r } = await start(api, 'mix', mixWith({ vendor: 11, extensionParams: { endpoint } }));
      assert.equal(r.status, 400, endpoint);
      assert.equal(r.body.code, 2, endpoint);
      assert.equal(r.body.reason, `${SC}.extensionParams.endpoint: ${NOT_PUBLIC}`, endpoint);
    }
    // The Azure account name becomes the host: one that is not a storage account name never reaches a URL.
    for (const accessKey of ['127.0.0.1:19350/?', 'Dev-Account', 'ab', 'a'.repeat(25)]) {
      const { r } = await start(api, 'mix', mixWith({ vendor: 5, accessKey, secretKey: 'c2VjcmV0' }));
      assert.equal(r.status, 400, accessKey);
      assert.equal(r.body.reason, `${SC}.accessKey: must be an Azure storage account name: 3-24 lowercase letters and digits`);
      assert.doesNotMatch(JSON.stringify(r.body), /19350|Dev-Account/, 'the value is not echoed');
    }
    // Bucket names the vendor refuses: the rule is named at start.
    const buckets: [number, number, string, string][] = [
      [1, 0, 'Upper-Case', 'may contain only lowercase letters, digits, "." and "-" for Amazon S3'],
      [1, 0, 'ab', 'must be 3-63 characters for Amazon S3'],
      [1, 0, 'my..bucket', 'must not contain two adjacent periods for Amazon S3'],
      [1, 0, '192.168.5.4', 'must not be formatted as an IP address for Amazon S3'],
      [1, 0, 'xn--bucket', 'must not start with the reserved prefix "xn--" for Amazon S3'],
      [2, 0, 'with.dot', 'may contain only lowercase letters, digits and "-" for Alibaba Cloud OSS'],
      [5, 0, 'two--hyphens', 'must not contain two adjacent hyphens for Microsoft Azure Blob Storage'],
      [6, 0, 'my-google-recs', 'must not contain "google" or a look-alike for Google Cloud Storage'],
      [7, 0, 'my-.bucket', 'must not have "." and "-" next to each other for Huawei Cloud OBS'],
      [8, 0, 'abc', 'must be 4-63 characters for Baidu AI Cloud BOS'],
    ];
    for (const [vendor, region, bucket, rule] of buckets) {
      const extra = vendor === 5 ? { accessKey: 'devstoreaccount1', secretKey: 'c2VjcmV0' } : {};
      const { r } = await start(api, 'mix', mixWith({ vendor, region, bucket, ...extra }));
      assert.equal(r.status, 400, bucket);
      assert.equal(r.body.reason, `${SC}.bucket: ${rule}`, bucket);
    }
    // A public endpoint and valid names start (the recorder double connects nowhere).
    assert.equal((await start(api, 'mix', mixWith({ vendor: 11, extensionParams: { endpoint: 'https://93.184.216.34:9000' } }))).r.status, 200);
    assert.equal((await start(api, 'mix', mixWith({ vendor: 5, accessKey: 'devstoreaccount1', secretKey: 'c2VjcmV0', bucket: 'recs' }))).r.status, 200);
  });
});

test('production: CDN push targets in private ranges are a 400 at start and at update', async () => {
  await withServer('production', async (api) => {
    const field = 'clientRequest.extensionServiceConfig.extensionServices[1].serviceParam.outputs[0].rtmpUrl';
    for (const rtmpUrl of ['rtmp://127.0.0.1/live/key', 'rtmps://[::1]:443/live/key', 'rtmp://10.1.2.3:1935/app/k', 'rtmp://198.51.100.7/live/k']) {
      const { r } = await start(api, 'web', webWith(rtmpUrl));
      assert.equal(r.status, 400, rtmpUrl);
      assert.equal(r.body.reason, `${field}: host ${NOT_PUBLIC}`, rtmpUrl);
      assert.doesNotMatch(JSON.stringify(r.body), /\/live\/key/, 'the stream key is not echoed');
    }
    // The page URL's refusal is worded the same way: no address or range in the answer.
    const page = webWith(undefined) as { extensionServiceConfig: { extensionServices: { serviceParam: Record<string, unknown> }[] } };
    page.extensionServiceConfig.extensionServices[0]!.serviceParam.url = 'http://169.254.169.254/latest/meta-data';
    const refusedPage = (await start(api, 'web', page)).r;
    assert.equal(refusedPage.body.reason, `clientRequest.extensionServiceConfig.extensionServices[0].serviceParam.url: host ${NOT_PUBLIC}`);

    const { rid, id, r } = await start(api, 'web', webWith('rtmp://93.184.216.34/live/key'));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const sid = r.body.sid as string;
    await waitUntil(async () => ((await api.query(rid, sid, 'web')).body.serverResponse as { status?: number } | undefined)?.status === 5, { what: 'running' });
    const u = await api.update(rid, sid, 'web', { ...id, clientRequest: { rtmpPublishConfig: { outputs: [{ rtmpUrl: 'rtmp://192.168.1.20/live/key' }] } } });
    assert.equal(u.status, 400);
    assert.equal(u.body.reason, `clientRequest.rtmpPublishConfig.outputs[0].rtmpUrl: host ${NOT_PUBLIC}`);
    const ok = await api.update(rid, sid, 'web', { ...id, clientRequest: { rtmpPublishConfig: { outputs: [{ rtmpUrl: 'rtmp://93.184.216.35/live/key2' }] } } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});

test('development: loopback storage endpoints and push targets are accepted (local S3 servers, Azurite, local RTMP)', async () => {
  await withServer('development', async (api) => {
    assert.equal((await start(api, 'mix', mixWith({ vendor: 11, extensionParams: { endpoint: 'http://127.0.0.1:19350' } }))).r.status, 200);
    const web = webWith('rtmp://127.0.0.1/live/key');
    assert.equal((await start(api, 'web', web)).r.status, 200);
  });
});
