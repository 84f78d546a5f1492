// The storage module inside a whole reeltime: the embedded local bucket over HTTP, and Azure via Azurite.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from '../config/index.ts';
import { loadConfig } from '../server/config.ts';
import { startTestServer } from '../testing/index.ts';
import type { StorageModule } from './module.ts';
import { urlSigningKey } from './signed-url.ts';
import { watchPath } from './watch-route.ts';
import type { StorageEvent } from './spool/index.ts';
import { AZURITE_ACCOUNT, AZURITE_KEY, startTestAzurite } from './testing/index.ts';

const work = mkdtempSync(join(tmpdir(), 'reeltime-storage-mod-'));
after(() => rmSync(work, { recursive: true, force: true }));

const storageOf = (s: { modules: readonly { name: string }[] }) => s.modules.find((m) => m.name === 'storage') as StorageModule;

/** A raw GET (fetch would normalise "../" away before it reaches the server). */
function rawGet(url: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('development default: sessions land in the local bucket, served with ranges and content types, no traversal', async () => {
  const s = await startTestServer();
  try {
    const storage = storageOf(s);
    const session = await storage.openSession({
      sid: 'sid1',
      appId: s.config.appId,
      cname: 'room',
      uid: '42',
      storage: { vendor: 1, region: 0, bucket: 'my-bucket', accessKey: 'ak', secretKey: 'sk', fileNamePrefix: ['a', 'b'] },
    });
    const events: StorageEvent[] = [];
    session.onEvent((e) => events.push(e));
    const files: Record<string, Buffer> = {
      'x.m3u8': Buffer.from('#EXTM3U\n#EXT-X-ENDLIST\n'),
      'x_0.ts': Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256)),
      'x_0.mp4': Buffer.alloc(10, 1),
      'x_0.webm': Buffer.alloc(10, 2),
      'x.jpg': Buffer.alloc(10, 3),
      'x.mp3': Buffer.alloc(10, 4),
      'x.m4a': Buffer.alloc(10, 5),
      'x.aac': Buffer.alloc(10, 6),
    };
    for (const [name, data] of Object.entries(files)) {
      const p = join(work, name);
      writeFileSync(p, data);
      assert.ok((await session.enqueue(p, session.objectKey(name))).ok);
    }
    const done = await session.finish();
    assert.equal(done.uploadingStatus, 'uploaded');
    assert.equal(done.files.length, 8);
    assert.ok(events.some((e) => e.kind === 'uploaded'));
    assert.equal(await storage.uploadingStatus('sid1'), 'uploaded');

    const types: Record<string, string> = {
      'x.m3u8': 'application/vnd.apple.mpegurl',
      'x_0.ts': 'video/mp2t',
      'x_0.mp4': 'video/mp4',
      'x_0.webm': 'video/webm',
      'x.jpg': 'image/jpeg',
      'x.mp3': 'audio/mpeg',
      'x.m4a': 'audio/mp4',
      'x.aac': 'audio/aac',
    };
    for (const [name, type] of Object.entries(types)) {
      const url = storage.localObjectUrl('my-bucket', `a/b/${name}`);
      assert.equal(url, `${s.url}/bucket/my-bucket/a/b/${name}`);
      const res = await fetch(url);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get('content-type'), type, name);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), files[name]);
    }
    const ts = files['x_0.ts']!;
    const part = await fetch(`${s.url}/bucket/my-bucket/a/b/x_0.ts`, { headers: { range: 'bytes=100-199' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100-199/${ts.length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), ts.subarray(100, 200));
    const tail = await fetch(`${s.url}/bucket/my-bucket/a/b/x_0.ts`, { headers: { range: 'bytes=-10' } });
    assert.deepEqual(Buffer.from(await tail.arrayBuffer()), ts.subarray(ts.length - 10));
    const bad = await fetch(`${s.url}/bucket/my-bucket/a/b/x_0.ts`, { headers: { range: 'bytes=99999-' } });
    assert.equal(bad.status, 416);
    const head = await fetch(`${s.url}/bucket/my-bucket/a/b/x_0.ts`, { method: 'HEAD' });
    assert.equal(head.headers.get('content-length'), String(ts.length));
    assert.equal(head.headers.get('accept-ranges'), 'bytes');

    // Nothing outside the bucket root: dev-credentials and the database live one level up.
    writeFileSync(join(s.dataDir, 'secret.txt'), 'do not serve');
    for (const path of [
      '/bucket/my-bucket/../../secret.txt',
      '/bucket/my-bucket/%2e%2e/%2e%2e/secret.txt',
      '/bucket/..%2fsecret.txt/x',
      '/bucket/my-bucket/a%2f..%2f..%2f..%2fsecret.txt',
      '/bucket/my-bucket/a/b',
      '/bucket/my-bucket/',
      '/bucket/%E0%A4%A/x',
      '/bucket/my-bucket/%252e%252e/%252e%252e/secret.txt',
    ]) {
      const r = await rawGet(s.url, path);
      assert.ok([400, 404].includes(r.status), `${path} -> ${r.status}`);
      assert.doesNotMatch(r.body.toString(), /do not serve/);
    }
    // Keys with spaces and non-ASCII characters round-trip through localObjectUrl.
    const odd = join(work, 'odd.ts');
    writeFileSync(odd, 'odd');
    const s2 = await storage.openSession({ sid: 'sid2', appId: s.config.appId, cname: 'r', uid: '1', storage: { vendor: 1, region: 0, bucket: 'my-bucket', accessKey: 'ak', secretKey: 'sk' } });
    assert.ok((await s2.enqueue(odd, 'dir/ü name.ts')).ok);
    await s2.finish();
    const oddRes = await fetch(storage.localObjectUrl('my-bucket', 'dir/ü name.ts'));
    assert.equal(await oddRes.text(), 'odd');
    const missing = await fetch(`${s.url}/bucket/my-bucket/a/b/none.ts`);
    assert.equal(missing.status, 404);
  } finally {
    await s.close();
  }
});

test('vendor 5 goes to Azure Blob (Azurite) through an endpoint override', async () => {
  const azurite = await startTestAzurite();
  const s = await startTestServer({ values: { storage: { routeAllToLocal: false, endpoints: { '5': azurite.url } } } });
  try {
    const { BlobServiceClient, StorageSharedKeyCredential } = await import('@azure/storage-blob');
    const svc = new BlobServiceClient(`${azurite.url}/${AZURITE_ACCOUNT}`, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
    const container = svc.getContainerClient('recs');
    await container.createIfNotExists();
    const storage = storageOf(s);
    const session = await storage.openSession({
      sid: 'sidaz',
      appId: s.config.appId,
      cname: 'room',
      uid: '42',
      storage: { vendor: 5, region: 0, bucket: 'recs', accessKey: AZURITE_ACCOUNT, secretKey: AZURITE_KEY, fileNamePrefix: ['az'] },
    });
    const p = join(work, 'az.ts');
    writeFileSync(p, Buffer.alloc(2048, 7));
    assert.ok((await session.enqueue(p, session.objectKey('seg_0.ts'))).ok);
    const playlist = join(work, 'az.m3u8');
    writeFileSync(playlist, '#EXTM3U\n#EXT-X-VERSION:3\n#EXTINF:2.000\nseg_0.ts\n');
    assert.ok((await session.enqueue(playlist, session.objectKey('p.m3u8'))).ok);
    const done = await session.finish();
    assert.equal(done.uploadingStatus, 'uploaded');
    const props = await container.getBlockBlobClient('az/seg_0.ts').getProperties();
    assert.equal(props.contentLength, 2048);
    assert.equal(props.contentType, 'video/mp2t');
    // The sessions API's playback link for it: a read-only SAS of that blob, fetched with no credentials.
    const cfg = { vendor: 5, region: 0, bucket: 'recs', accessKey: AZURITE_ACCOUNT, secretKey: AZURITE_KEY, fileNamePrefix: ['az'] } as const;
    const links = await storage.playbackUrls(s.config.appId, cfg, ['az/seg_0.ts']);
    const link = links.get('az/seg_0.ts');
    assert.match(link ?? '', new RegExp(`^${azurite.url}/${AZURITE_ACCOUNT}/recs/az/seg_0\\.ts\\?.*sp=r&sig=`));
    const got = await fetch(link!);
    assert.equal(got.status, 200);
    assert.equal((await got.arrayBuffer()).byteLength, 2048);
    // A wrong key signs links that Azure refuses. Credentials that no longer sign (an expired STS token, checked
    // before anything is signed or sent) give none: the file is listed without a link.
    assert.equal((await fetch((await storage.playbackUrls(s.config.appId, { ...cfg, secretKey: Buffer.from('not-the-key').toString('base64') }, ['az/seg_0.ts'])).get('az/seg_0.ts')!)).status, 403);
    // The playlist's link is a watch link: the playlist as stored, its slice named by a SAS link of its own.
    const watch = (await storage.playbackUrls(s.config.appId, cfg, ['az/p.m3u8'])).get('az/p.m3u8')!;
    assert.match(watch, new RegExp(`^${s.url}/watch/${s.config.appId}/recs/az/p\\.m3u8\\?expires=\\d+&signature=`));
    const watched = await fetch(watch);
    assert.equal(watched.status, 200);
    assert.equal(watched.headers.get('content-type'), 'application/vnd.apple.mpegurl');
    assert.equal(watched.headers.get('cache-control'), 'no-cache');
    const text = await watched.text();
    const sliceLink = text.split('\n').find((l) => l.startsWith('http'));
    assert.match(sliceLink ?? '', new RegExp(`^${azurite.url}/${AZURITE_ACCOUNT}/recs/az/seg_0\\.ts\\?.*sp=r&sig=`), text);
    assert.equal((await (await fetch(sliceLink!)).arrayBuffer()).byteLength, 2048);
    assert.equal((await fetch(watch.replace(/signature=[^&]+/, 'signature=AAAA'))).status, 403);
    assert.equal((await fetch(watch.replace('p.m3u8', 'q.m3u8'))).status, 403, 'a link names one playlist');
    // Bad input: a path that is not URL encoding, no signature, an object that is no playlist.
    const badPath = await fetch(`${s.url}/watch/${s.config.appId}/recs/%E0%A4%A.m3u8`);
    assert.equal(badPath.status, 400);
    // (Fastify's router refuses it first, with its own clear 400.)
    assert.match(((await badPath.json()) as { error: string }).error, /^bad_(url|path)$/);
    const unsigned = await fetch(watch.split('?')[0]!);
    assert.equal(unsigned.status, 403);
    assert.equal(((await unsigned.json()) as { error: string }).error, 'signature_missing');
    assert.equal((await fetch(watch.replace('p.m3u8', 'seg_0.ts'))).status, 404, 'only playlists');
    const otherAppLink = watchPath(urlSigningKey(s.config.appCertificate), '0123456789abcdef0123456789abcdef', 'recs', 'az/p.m3u8', Math.floor(Date.now() / 1000) + 60);
    const otherApp = await fetch(`${s.url}${otherAppLink}`);
    assert.equal(otherApp.status, 404, "another app's link to the same key finds no session of that app");
    const expiredSts = { vendor: 1, region: 0, bucket: 'recs', accessKey: 'AKIATEST', secretKey: 'secret', stsToken: 'token', stsExpiration: 1_000_000_000, fileNamePrefix: ['az'] } as const;
    assert.equal((await storage.playbackUrls(s.config.appId, expiredSts, ['az/seg_0.ts'])).size, 0);
    // The store gone: the watch link answers 502 storage_unavailable naming the store, never its key.
    await azurite.close();
    const unavailable = await fetch(watch);
    assert.equal(unavailable.status, 502);
    assert.equal(unavailable.headers.get('cache-control'), 'no-store');
    const failed = (await unavailable.json()) as { error: string; message: string };
    assert.equal(failed.error, 'storage_unavailable');
    assert.ok(failed.message.length > 5 && !failed.message.includes(AZURITE_KEY), failed.message);
  } finally {
    await s.close();
    await azurite.close();
  }
});

test('storage config: defaults, overrides and errors naming the setting', () => {
  const cwd = mkdtempSync(join(work, 'cfg-'));
  const base = { REELTIME_APP_ID: '970CA35de60c44645bbae8a215061b33' };
  const dev = loadConfig({ cwd, env: base });
  assert.equal(dev.storage.routeAllToLocal, true);
  assert.equal(dev.storage.bucketDir, join(cwd, 'data', 'bucket'));
  assert.equal(dev.storage.spoolDir, join(cwd, 'data', 'spool'));
  const c = loadConfig({ cwd, env: { ...base, REELTIME_STORAGE_ENDPOINTS: '1=http://127.0.0.1:4568/, 5=http://127.0.0.1:10000' } });
  assert.deepEqual(c.storage.endpoints, { 1: 'http://127.0.0.1:4568', 5: 'http://127.0.0.1:10000' });
  const f = loadConfig({ cwd, values: { storage: { endpoints: { '11': 'http://127.0.0.1:9000' }, spoolMaxBytes: 1000, routeAllToLocal: false } }, env: base });
  assert.deepEqual(f.storage.endpoints, { 11: 'http://127.0.0.1:9000' });
  assert.equal(f.storage.spoolMaxBytes, 1000);
  assert.equal(f.storage.routeAllToLocal, false);
  assert.throws(() => loadConfig({ cwd, env: { ...base, REELTIME_STORAGE_ENDPOINTS: '4=http://x' } }), (e: unknown) => e instanceof ConfigError && /REELTIME_STORAGE_ENDPOINTS.*unknown vendor "4"/.test(e.message));
  assert.throws(() => loadConfig({ cwd, values: { storage: { endpoints: { '1': 'nope' } } }, env: base }), /storage\.endpoints.*not a URL/);
  assert.throws(() => loadConfig({ cwd, env: { ...base, REELTIME_STORAGE_PART_SIZE_BYTES: '100' } }), /REELTIME_STORAGE_PART_SIZE_BYTES/);
});
