import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentTypeFor, isSafeObjectKey, objectKey, storedCacheControl } from './naming.ts';
import { endpointUrl, validateStorageConfig } from './storage-config.ts';

const base = { vendor: 1, region: 0, bucket: 'rec-bucket', accessKey: 'AKIAEXAMPLE', secretKey: 'TOPSECRETKEY' };

function problem(input: unknown): { field: string; reason: string } {
  const r = validateStorageConfig(input);
  assert.equal(r.ok, false);
  return r as { field: string; reason: string };
}

test('a valid storageConfig passes and is copied', () => {
  const r = validateStorageConfig({
    ...base,
    stsToken: 'sts',
    stsExpiration: 1_900_000_000,
    fileNamePrefix: ['a1', 'B2'],
    extensionParams: { sse: 'kms', tag: 'team=rec' },
  });
  assert.ok(r.ok);
  assert.deepEqual(r.value.fileNamePrefix, ['a1', 'B2']);
  assert.ok(validateStorageConfig({ ...base, vendor: 11, extensionParams: { endpoint: 'minio.local:9000' } }).ok);
});

test('bad storageConfig fields are named, secrets never echoed', () => {
  assert.equal(problem(null).field, 'storageConfig');
  assert.equal(problem({ ...base, vendor: 4 }).field, 'storageConfig.vendor');
  assert.equal(problem({ ...base, region: 99 }).field, 'storageConfig.region');
  assert.equal(problem({ ...base, bucket: '' }).field, 'storageConfig.bucket');
  assert.equal(problem({ ...base, bucket: '../x' }).field, 'storageConfig.bucket');
  assert.equal(problem({ ...base, secretKey: 3 }).field, 'storageConfig.secretKey');
  assert.equal(problem({ ...base, vendor: 5, stsToken: 'x' }).field, 'storageConfig.stsToken');
  assert.equal(problem({ ...base, stsExpiration: 5 }).field, 'storageConfig.stsExpiration');
  assert.equal(problem({ ...base, fileNamePrefix: ['ok', 'no_underscore'] }).field, 'storageConfig.fileNamePrefix[1]');
  assert.equal(problem({ ...base, fileNamePrefix: ['a'.repeat(100), 'b'.repeat(30)] }).field, 'storageConfig.fileNamePrefix');
  assert.equal(problem({ ...base, extensionParams: { sse: 'des' } }).field, 'storageConfig.extensionParams.sse');
  assert.equal(problem({ ...base, vendor: 2, extensionParams: { sse: 'kms' } }).field, 'storageConfig.extensionParams.sse');
  assert.equal(problem({ ...base, vendor: 3, extensionParams: { tag: 't' } }).field, 'storageConfig.extensionParams.tag');
  assert.equal(problem({ ...base, vendor: 11 }).field, 'storageConfig.extensionParams.endpoint');
  assert.equal(problem({ ...base, vendor: 11, extensionParams: { endpoint: 'ftp://x' } }).field, 'storageConfig.extensionParams.endpoint');
  for (const input of [{ ...base, bucket: '' }, { ...base, vendor: 5, stsToken: 'TOPSECRETKEY' }]) {
    assert.doesNotMatch(JSON.stringify(problem(input)), /TOPSECRETKEY|AKIAEXAMPLE/);
  }
});

test('object keys, key safety and content types', () => {
  assert.equal(objectKey({}, 'a.m3u8'), 'a.m3u8');
  assert.equal(objectKey({ fileNamePrefix: ['x', 'y'] }, 'a.ts'), 'x/y/a.ts');
  assert.ok(isSafeObjectKey('x/y/a.ts'));
  for (const bad of ['', '/abs', 'a/../b', '..', 'a//b', 'a\\b', 'a/./b', 'a\u0000b']) assert.equal(isSafeObjectKey(bad), false, bad);
  assert.equal(contentTypeFor('a.M3U8'), 'application/vnd.apple.mpegurl');
  assert.equal(contentTypeFor('a.ts'), 'video/mp2t');
  assert.equal(contentTypeFor('a.mp4'), 'video/mp4');
  assert.equal(contentTypeFor('a.webm'), 'video/webm');
  assert.equal(contentTypeFor('a.jpg'), 'image/jpeg');
  assert.equal(contentTypeFor('a.mp3'), 'audio/mpeg');
  assert.equal(contentTypeFor('a.m4a'), 'audio/mp4');
  assert.equal(contentTypeFor('a.aac'), 'audio/aac');
  assert.equal(contentTypeFor('a.bin'), 'application/octet-stream');
  // Stored with each object for a CDN: a playlist grows while recording, the rest never changes under its name.
  assert.equal(storedCacheControl('rec/sid_c__uid_s_1__uid_e_video.m3u8'), 'no-cache');
  assert.equal(storedCacheControl('a.M3U8'), 'no-cache');
  // The speaker timeline is rewritten as the session goes too.
  assert.equal(storedCacheControl('rec/sid_c_speakers.json'), 'no-cache');
  assert.equal(storedCacheControl('rec/bak0_sid_c_speakers.vtt'), 'no-cache');
  assert.equal(contentTypeFor('rec/sid_c_speakers.vtt'), 'text/vtt; charset=utf-8');
  for (const k of ['rec/sid_c__uid_s_1__uid_e_video_20261130101010123.ts', 'sid_c_0.mp4', 'x.webm', 'x.jpg']) assert.equal(storedCacheControl(k), 'max-age=3600, immutable', k);
  assert.equal(endpointUrl('minio.local:9000'), 'https://minio.local:9000');
  assert.equal(endpointUrl('http://127.0.0.1:9000/'), 'http://127.0.0.1:9000');
  assert.equal(endpointUrl('http://u:p@h'), undefined);
});

test('an empty sse or tag is "not set" (the Go REST client sends sse: "" for every vendor)', () => {
  const r = validateStorageConfig({ ...base, vendor: 2, region: 3, extensionParams: { sse: '', tag: '' } });
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.value.extensionParams, {});
  assert.equal(problem({ ...base, vendor: 2, region: 3, extensionParams: { sse: 'kms' } }).field, 'storageConfig.extensionParams.sse');
});

test('bucket names follow the vendor\'s rules; Azure account names are storage account names (issue 30 item 5, issue 25 item 2)', () => {
  const ok: [number, number, string][] = [
    [1, 0, 'rec-bucket'], [1, 0, 'my.bucket.name'], [2, 0, 'oss-bucket-1'], [3, 0, 'examplebucket-1250000000'],
    [5, 0, 'recs'], [6, 0, 'gcs_bucket.with.dots'], [7, 0, 'obs.bucket-1'], [8, 0, 'bos1'], [11, 0, 'Any_Name.ok'],
  ];
  for (const [vendor, region, bucket] of ok) {
    const extra = vendor === 5 ? { accessKey: 'account1' } : vendor === 11 ? { extensionParams: { endpoint: 'minio.local:9000' } } : {};
    const r = validateStorageConfig({ ...base, vendor, region, bucket, ...extra });
    assert.ok(r.ok, `${vendor} ${bucket}: ${JSON.stringify(r)}`);
  }
  const bad: [number, string, RegExp][] = [
    [1, 'a'.repeat(64), /3-63 characters for Amazon S3/],
    [1, 'trail-', /start and end with a lowercase letter or digit/],
    [1, 'bucket-s3alias', /reserved suffix "-s3alias"/],
    [2, 'UPPER', /lowercase letters, digits and "-" for Alibaba/],
    [3, 'under_score', /for Tencent Cloud COS/],
    [5, 'ab', /3-63 characters for Microsoft Azure/],
    [6, 'goog-bucket', /must not start with "goog"/],
    [6, `${'a'.repeat(64)}`, /at most 63 characters unless it contains periods/],
    [7, 'a..b', /two adjacent periods for Huawei/],
    [8, 'bos-', /start and end/],
  ];
  for (const [vendor, bucket, why] of bad) {
    const p = problem({ ...base, vendor, region: 0, bucket, ...(vendor === 5 ? { accessKey: 'account1' } : {}) });
    assert.equal(p.field, 'storageConfig.bucket', bucket);
    assert.match(p.reason, why, bucket);
  }
  for (const accessKey of ['127.0.0.1:19350/?', 'UPPER', 'ab', 'a'.repeat(25), 'dev-account']) {
    const p = problem({ ...base, vendor: 5, bucket: 'recs', accessKey });
    assert.equal(p.field, 'storageConfig.accessKey');
    assert.doesNotMatch(p.reason, /127\.0\.0\.1|UPPER/);
  }
});
