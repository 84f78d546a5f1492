// The connect-time outbound guard of the storage uploaders (issue 25 item 2): with private targets refused, a storage
// host that is or resolves to a non-public address gets no request, whatever it resolved to at start. Name
// resolution is injected (the policy's `resolve`), so nothing leaves loopback, not even a DNS query.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { OutboundPolicy, ResolvedAddress } from '../../net/index.ts';
import { checkStorageTarget } from '../outbound.ts';
import type { StorageConfig } from '../storage-config.ts';
import { AZURITE_KEY, S3RVER_KEY, startTestS3Server, testStorageSettings, type TestS3Server } from '../testing/index.ts';
import { NOT_PUBLIC } from './classify.ts';
import { createUploader } from './factory.ts';
import { UploadError } from './types.ts';

const config = testStorageSettings({ serveBucket: false, bucketPublic: false });

let s3: TestS3Server;
before(async () => {
  s3 = await startTestS3Server(['guarded']);
});
after(() => s3.close());

const port = () => new URL(s3.url).port;
const v11 = (endpoint: string): StorageConfig =>
  ({ vendor: 11, region: 0, bucket: 'guarded', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY, extensionParams: { endpoint } }) as StorageConfig;
const put = { key: 'g/a.ts', body: { data: Buffer.from('x') }, contentType: 'video/mp2t' };
const refused = (e: unknown) => e instanceof UploadError && e.kind === 'config' && e.message.endsWith(NOT_PUBLIC) && !/127\.0\.0\.1/.test(e.message);

/** A resolver that answers from a table the test changes, recording every name asked. */
function resolver(answers: Map<string, string>, asked: string[]): (host: string) => Promise<readonly ResolvedAddress[]> {
  return async (host) => {
    asked.push(host);
    const address = answers.get(host);
    if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [{ address, family: 4 }];
  };
}

test('a storage host whose DNS answer turned private after the start check gets no request', async () => {
  const answers = new Map([['s3.example.test', '93.184.216.34']]);
  const asked: string[] = [];
  const policy: OutboundPolicy = { allowPrivate: false, resolve: resolver(answers, asked) };
  const storage = v11(`http://s3.example.test:${port()}`);
  // At start the name resolved to a public address: accepted (nothing is connected to at start).
  assert.equal(await checkStorageTarget(storage, config, policy), undefined);
  // By the time the recorder uploads, the name points at loopback: the connection is refused, nothing is written.
  answers.set('s3.example.test', '127.0.0.1');
  const u = createUploader(storage, config, Date.now, policy);
  await assert.rejects(u.put(put), refused);
  u.close();
  assert.deepEqual(s3.writes, []);
  assert.ok(asked.filter((h) => h === 's3.example.test').length >= 2, 'resolved at start and again at connect');

  // The same lookup lets an allowed range through: the upload reaches the server the guard resolved (named
  // `localhost`, which s3rver takes for path-style; the injected resolver answers it, not the system).
  answers.set('localhost', '127.0.0.1');
  const allowed = createUploader(v11(`http://localhost:${port()}`), config, Date.now, { ...policy, allow: ['127.0.0.0/8'] });
  await allowed.put(put);
  allowed.close();
  assert.deepEqual(s3.writes, ['g/a.ts']);
});

test('an IP-literal storage endpoint in a private range is refused before any request', async () => {
  const before = s3.writes.length;
  for (const endpoint of [s3.url, `http://[::ffff:127.0.0.1]:${port()}`, `http://0x7f.1:${port()}`]) {
    const u = createUploader(v11(endpoint), config, Date.now, { allowPrivate: false });
    await assert.rejects(u.put(put), refused, endpoint);
    u.close();
  }
  assert.equal(s3.writes.length, before);
});

test('Azure: the account host is resolved through the guard at connect time and refused when private', async () => {
  const asked: string[] = [];
  const policy: OutboundPolicy = { allowPrivate: false, resolve: resolver(new Map([['devstoreaccount1.blob.core.windows.net', '10.1.2.3']]), asked) };
  const storage = { vendor: 5, region: 0, bucket: 'recs', accessKey: 'devstoreaccount1', secretKey: AZURITE_KEY } as StorageConfig;
  const u = createUploader(storage, config, Date.now, policy);
  await assert.rejects(u.put(put), refused);
  u.close();
  assert.ok(asked.includes('devstoreaccount1.blob.core.windows.net'), JSON.stringify(asked));
});

test('operator endpoint overrides and development (private allowed) are not guarded', async () => {
  const u = createUploader(v11('http://ignored.example'), { ...config, endpoints: { 11: s3.url } }, Date.now, { allowPrivate: false });
  await u.put({ ...put, key: 'g/override.ts' });
  u.close();
  const dev = createUploader(v11(s3.url), config, Date.now, { allowPrivate: true });
  await dev.put({ ...put, key: 'g/dev.ts' });
  dev.close();
  assert.ok(s3.writes.includes('g/override.ts') && s3.writes.includes('g/dev.ts'));
});
