// One contract, three implementations: the local bucket, S3 (s3rver) and Azure Blob (Azurite), all on loopback.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEY, startTestAzurite, startTestS3Server, type TestAzurite, type TestS3Server } from '../testing/index.ts';
import { storedCacheControl } from '../naming.ts';
import { createAzureUploader } from './azure.ts';
import { createLocalUploader } from './local.ts';
import { createS3Uploader } from './s3.ts';
import { UploadError, type Uploader } from './types.ts';

const MiB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), 'reeltime-contract-'));
let s3: TestS3Server;
let azurite: TestAzurite;

before(async () => {
  [s3, azurite] = await Promise.all([startTestS3Server(['recordings']), startTestAzurite()]);
});
after(async () => {
  await Promise.all([s3?.close(), azurite?.close()]);
  rmSync(work, { recursive: true, force: true });
});

const s3Uploader = (over: { bucket?: string; key?: string; endpoint?: string } = {}): Uploader =>
  createS3Uploader({
    endpoint: over.endpoint ?? s3.url,
    region: 'us-east-1',
    forcePathStyle: true,
    bucket: over.bucket ?? 'recordings',
    accessKeyId: over.key ?? S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    partSize: 5 * MiB,
    now: Date.now,
    description: 'vendor 1 region 0 bucket "recordings"',
  });

const azureUploader = (over: { container?: string; key?: string; url?: string } = {}): Uploader =>
  createAzureUploader({
    serviceUrl: `${over.url ?? azurite.url}/${AZURITE_ACCOUNT}`,
    accountName: AZURITE_ACCOUNT,
    accountKey: over.key ?? AZURITE_KEY,
    container: over.container ?? 'recordings',
    blockSize: 5 * MiB,
    description: 'vendor 5 region 0 bucket "recordings"',
  });

interface Impl {
  readonly name: string;
  make(): Promise<Uploader>;
  /** Uploaders whose settings are wrong, with the readable reason expected; none for the local bucket. */
  misconfigured?: () => ReadonlyArray<readonly [Uploader, RegExp]>;
  unreachable?: () => Uploader;
}

const impls: Impl[] = [
  { name: 'local', make: async () => createLocalUploader(join(work, 'bucket'), 'recordings') },
  {
    name: 's3',
    make: async () => s3Uploader(),
    misconfigured: () => [
      // s3rver checks the access key id but not SigV4 signatures, so the wrong credential is the key id.
      [s3Uploader({ key: 'WRONGKEYID' }), /access key is not known/],
      [s3Uploader({ bucket: 'missing' }), /bucket does not exist/],
    ],
    unreachable: () => s3Uploader({ endpoint: 'http://127.0.0.1:9' }),
  },
  {
    name: 'azure',
    make: async () => {
      const { BlobServiceClient, StorageSharedKeyCredential } = await import('@azure/storage-blob');
      const svc = new BlobServiceClient(
        `${azurite.url}/${AZURITE_ACCOUNT}`,
        new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
      );
      await svc.getContainerClient('recordings').createIfNotExists();
      return azureUploader();
    },
    misconfigured: () => [
      [azureUploader({ key: Buffer.from('wrong-account-key').toString('base64') }), /credentials were refused/],
      [azureUploader({ container: 'missing' }), /container \(bucket\) does not exist/],
    ],
    unreachable: () => azureUploader({ url: 'http://127.0.0.1:9' }),
  },
];

for (const impl of impls) {
  describe(`uploader contract: ${impl.name}`, () => {
    test('puts a file, a buffer and a stream; head, get, list and delete see them', async () => {
      const u = await impl.make();
      const file = join(work, `seg-${impl.name}.ts`);
      const bytes = randomBytes(300 * 1024);
      writeFileSync(file, bytes);
      await u.put({ key: 'p1/a/seg0.ts', body: { file }, contentType: 'video/mp2t', cacheControl: storedCacheControl('p1/a/seg0.ts') });
      await u.put({ key: 'p1/a/index.m3u8', body: { data: Buffer.from('#EXTM3U\n') }, contentType: 'application/vnd.apple.mpegurl', cacheControl: storedCacheControl('p1/a/index.m3u8') });
      await u.put({ key: 'p1/b/s.jpg', body: { stream: Readable.from([Buffer.from('jpeg-ish')]) }, contentType: 'image/jpeg' });
      const h = await u.head('p1/a/seg0.ts');
      assert.equal(h?.size, bytes.length);
      assert.equal(h?.contentType, 'video/mp2t');
      assert.equal((await u.head('p1/a/index.m3u8'))?.contentType, 'application/vnd.apple.mpegurl');
      // A CDN in front of the bucket revalidates the growing playlist and keeps the segments (the local bucket
      // answers its own headers: bucket-route.ts).
      if (u.kind !== 'local') {
        assert.equal(h?.cacheControl, 'max-age=3600, immutable');
        assert.equal((await u.head('p1/a/index.m3u8'))?.cacheControl, 'no-cache');
      }
      assert.deepEqual(await u.get('p1/a/seg0.ts'), bytes);
      assert.equal((await u.get('p1/b/s.jpg'))?.toString(), 'jpeg-ish');
      assert.equal(await u.head('p1/none.ts'), undefined);
      assert.equal(await u.get('p1/none.ts'), undefined);
      assert.deepEqual((await u.list('p1/a/')).map((o) => o.key).sort(), ['p1/a/index.m3u8', 'p1/a/seg0.ts']);
      // Overwrite keeps one object with the new bytes (a growing playlist).
      await u.put({ key: 'p1/a/index.m3u8', body: { data: Buffer.from('#EXTM3U\n#EXT-X-ENDLIST\n') }, contentType: 'application/vnd.apple.mpegurl' });
      assert.equal((await u.get('p1/a/index.m3u8'))?.toString(), '#EXTM3U\n#EXT-X-ENDLIST\n');
      assert.equal((await u.list('p1/')).length, 3);
      await u.delete('p1/a/seg0.ts');
      assert.equal(await u.head('p1/a/seg0.ts'), undefined);
      u.close();
    });

    test('a read link fetches the object without credentials until it expires (none for the local bucket)', async (t) => {
      const u = await impl.make();
      const key = 'p2/watch/index.m3u8';
      const body = '#EXTM3U\n#EXT-X-VERSION:3\n';
      await u.put({ key, body: { data: Buffer.from(body) }, contentType: 'application/vnd.apple.mpegurl', cacheControl: storedCacheControl(key) });
      const url = await u.readUrl(key, Date.now() + 60_000);
      if (u.kind === 'local') {
        assert.equal(url, undefined);
        return u.close();
      }
      assert.ok(url, 'a link');
      t.diagnostic(url.replace(/(Signature|sig)=[^&]+/g, '$1=…'));
      const got = await fetch(url);
      assert.equal(got.status, 200);
      assert.equal(await got.text(), body);
      assert.equal(got.headers.get('content-type'), 'application/vnd.apple.mpegurl');
      if (u.kind === 's3') {
        // (s3rver does not check SigV4 signatures: the link's form is what is checked here.)
        // Whole seconds left, rounded down (the link never outlives its watch link): 59 once a millisecond went by.
        assert.match(url, /X-Amz-Expires=(59|60)&/);
        assert.match(url, /X-Amz-Signature=[0-9a-f]{64}/);
      } else {
        // Azurite checks a SAS: read only, this blob, until its expiry.
        assert.match(url, /sp=r&/);
        assert.equal((await fetch(url.replace(/sig=[^&]+/, 'sig=AAAA'))).status, 403);
        const expired = await u.readUrl(key, Date.now() - 60_000);
        assert.equal((await fetch(expired!)).status, 403);
        const other = url.replace('/watch/index.m3u8', '/watch/other.m3u8');
        assert.equal((await fetch(other)).status, 403);
      }
      u.close();
    });

    test('a file larger than a part goes up in parts and arrives intact', async () => {
      const u = await impl.make();
      const file = join(work, `big-${impl.name}.mp4`);
      const bytes = randomBytes(11 * MiB + 123);
      writeFileSync(file, bytes);
      await u.put({ key: 'big/rec_0.mp4', body: { file }, contentType: 'video/mp4' });
      const got = await u.get('big/rec_0.mp4');
      assert.equal(got?.length, bytes.length);
      assert.ok(got?.equals(bytes));
      u.close();
    });

    test('wrong credentials and a missing bucket are config errors with a readable message', async (t) => {
      if (!impl.misconfigured) return t.skip('the local bucket has no credentials and creates buckets on demand');
      for (const [u, reason] of impl.misconfigured()) {
        await assert.rejects(
          u.put({ key: 'x/y.ts', body: { data: Buffer.from('x') }, contentType: 'video/mp2t' }),
          (e: unknown) => {
            assert.ok(e instanceof UploadError);
            assert.equal(e.kind, 'config');
            assert.match(e.message, reason);
            assert.doesNotMatch(e.message, /d3JvbmctYWNjb3VudC1rZXk|Eby8vdM02/);
            return true;
          },
        );
        u.close();
      }
    });

    test('an unreachable endpoint is a transient error, worded without the socket error (the log gets it)', async (t) => {
      if (!impl.unreachable) return t.skip('the local bucket has no network');
      const u = impl.unreachable();
      await assert.rejects(
        u.put({ key: 'x/y.ts', body: { data: Buffer.from('x') }, contentType: 'video/mp2t' }),
        (e: unknown) =>
          e instanceof UploadError &&
          e.kind === 'transient' &&
          /the storage could not be reached/.test(e.message) &&
          !/ECONN|refused|reset|timed? ?out|closed/i.test(e.message.replace(/could not be reached.*$/, '')) &&
          /ECONNREFUSED/.test(e.detail ?? ''),
      );
      u.close();
    });
  });
}
