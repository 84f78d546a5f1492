import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { GetObjectTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import type { StorageConfig } from '../storage-config.ts';
import { S3RVER_KEY, startTestS3Server, testStorageSettings, type TestS3Server } from '../testing/index.ts';
import { createUploader, resolveDestination } from './factory.ts';
import { UploadError } from './types.ts';

const config = testStorageSettings;
const sc = (vendor: number, region: number, over: Partial<StorageConfig> = {}): StorageConfig =>
  ({ vendor, region, bucket: 'bkt', accessKey: 'acct', secretKey: 'c2VjcmV0', ...over }) as StorageConfig;

test('each vendor resolves to its real regional endpoint (pure; nothing contacted)', () => {
  const cases: Array<[StorageConfig, string, string, boolean]> = [
    [sc(1, 3), 'https://s3.us-west-2.amazonaws.com', 'us-west-2', false],
    [sc(1, 15), 'https://s3.cn-north-1.amazonaws.com.cn', 'cn-north-1', false],
    [sc(2, 0), 'https://oss-cn-hangzhou.aliyuncs.com', 'cn-hangzhou', false],
    [sc(3, 10), 'https://cos.ap-singapore.myqcloud.com', 'ap-singapore', false],
    [sc(6, 0), 'https://storage.googleapis.com', 'auto', true],
    [sc(7, 0), 'https://obs.cn-north-1.myhuaweicloud.com', 'cn-north-1', false],
    [sc(8, 1), 'https://s3.bd.bcebos.com', 'bd', false],
    [sc(11, 0, { extensionParams: { endpoint: 'minio.example:9000' } }), 'https://minio.example:9000', 'us-east-1', true],
  ];
  for (const [s, endpoint, signingRegion, forcePathStyle] of cases) {
    const d = resolveDestination(s, config());
    assert.equal(d.api, 's3');
    assert.deepEqual(
      d.api === 's3' && { endpoint: d.endpoint, signingRegion: d.signingRegion, forcePathStyle: d.forcePathStyle },
      { endpoint, signingRegion, forcePathStyle },
      `vendor ${s.vendor} region ${s.region}`,
    );
  }
  assert.deepEqual(resolveDestination(sc(5, 0), config()), {
    api: 'azure',
    serviceUrl: 'https://acct.blob.core.windows.net',
    container: 'bkt',
  });
  assert.deepEqual(resolveDestination(sc(5, 0), config({ endpoints: { 5: 'http://127.0.0.1:10000' } })), {
    api: 'azure',
    serviceUrl: 'http://127.0.0.1:10000/acct',
    container: 'bkt',
  });
  const o = resolveDestination(sc(2, 3), config({ endpoints: { 2: 'http://127.0.0.1:4568' } }));
  assert.ok(o.api === 's3' && o.endpoint === 'http://127.0.0.1:4568' && o.forcePathStyle && o.signingRegion === 'cn-beijing');
  assert.deepEqual(resolveDestination(sc(1, 0), config({ routeAllToLocal: true })), { api: 'local', root: '/data/bucket', bucket: 'bkt' });
});

test('STS, SSE and tags apply only to the vendors that support them', () => {
  const ext = { sse: 'kms', tag: 'a=b' } as const;
  const d1 = resolveDestination(sc(1, 0, { stsToken: 't', extensionParams: ext }), config());
  assert.ok(d1.api === 's3' && d1.useSts && d1.sse === 'kms' && d1.tag === 'a=b');
  const d2 = resolveDestination(sc(2, 0, { stsToken: 't', extensionParams: { tag: 'a=b' } }), config());
  assert.ok(d2.api === 's3' && d2.useSts && d2.sse === undefined && d2.tag === 'a=b');
  const d3 = resolveDestination(sc(3, 0, { stsToken: 't' }), config());
  assert.ok(d3.api === 's3' && d3.useSts);
  const d7 = resolveDestination(sc(7, 0, { stsToken: 't', extensionParams: ext }), config());
  assert.ok(d7.api === 's3' && !d7.useSts && d7.sse === undefined && d7.tag === undefined);
});

test('an expired stsToken is refused locally as a config error', async () => {
  const u = createUploader(
    sc(1, 0, { stsToken: 'tok-secret', stsExpiration: 1_700_000_000 }),
    config({ endpoints: { 1: 'http://127.0.0.1:9' } }),
    () => 1_700_000_001_000,
  );
  await assert.rejects(
    u.put({ key: 'a.ts', body: { data: Buffer.from('x') }, contentType: 'video/mp2t' }),
    (e: unknown) => e instanceof UploadError && e.kind === 'config' && /stsToken expired/.test(e.message) && !/tok-secret/.test(e.message),
  );
  u.close();
});

// A recording proxy in front of s3rver shows what headers went over the wire (s3rver itself ignores SSE).
let s3: TestS3Server;
let proxy: Server;
let proxyUrl = '';
const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
before(async () => {
  s3 = await startTestS3Server(['tagged']);
  proxy = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const up = request(`${s3.url}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});
after(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await s3.close();
});

test('vendor 11 uploads to the server named in extensionParams.endpoint, path-style', async () => {
  const storage = sc(11, 0, { bucket: 'tagged', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY, extensionParams: { endpoint: s3.url } });
  const u = createUploader(storage, config(), Date.now);
  await u.put({ key: 'v11/a.m3u8', body: { data: Buffer.from('#EXTM3U\n') }, contentType: 'application/vnd.apple.mpegurl' });
  assert.equal((await u.get('v11/a.m3u8'))?.toString(), '#EXTM3U\n');
  assert.equal((await u.head('v11/a.m3u8'))?.contentType, 'application/vnd.apple.mpegurl');
  u.close();
});

test('vendor 1 sends SSE headers and tags the object (s3rver behind a recording proxy)', async () => {
  const storage = sc(1, 0, {
    bucket: 'tagged',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
    extensionParams: { sse: 'aes256', tag: 'team=rec&env=test' },
  });
  const u = createUploader(storage, config({ endpoints: { 1: proxyUrl } }), Date.now);
  await u.put({ key: 'p/a.ts', body: { data: Buffer.alloc(1000) }, contentType: 'video/mp2t' });
  u.close();
  const put = seen.find((s) => s.method === 'PUT' && s.url.startsWith('/tagged/p/a.ts') && !s.url.includes('tagging'));
  assert.equal(put?.headers['x-amz-server-side-encryption'], 'AES256');
  assert.equal(put?.headers['content-type'], 'video/mp2t');
  const client = new S3Client({
    endpoint: s3.url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
  });
  const tags = await client.send(new GetObjectTaggingCommand({ Bucket: 'tagged', Key: 'p/a.ts' }));
  client.destroy();
  assert.deepEqual(
    (tags.TagSet ?? []).map((t) => `${t.Key}=${t.Value}`).sort(),
    ['env=test', 'team=rec'],
  );
});
