import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentTypeFor, isSafeObjectKey, objectKey } from './naming.ts';
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
