// The uploader pool's lifecycle with uploaders whose puts the test ends by hand (no bucket needed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StorageConfig } from '../storage-config.ts';
import type { Uploader } from '../uploaders/index.ts';
import { UploaderPool } from './uploader-pool.ts';

interface Made {
  readonly bucket: string;
  closed: boolean;
  readonly puts: Array<() => void>;
}

function rig() {
  const made: Made[] = [];
  const pool = new UploaderPool((storage) => {
    const m: Made = { bucket: storage.bucket, closed: false, puts: [] };
    made.push(m);
    const uploader: Uploader = {
      kind: 'local',
      description: storage.bucket,
      put: () => new Promise<void>((resolve) => m.puts.push(resolve)),
      head: async () => undefined,
      get: async () => undefined,
      list: async () => [],
      delete: async () => undefined,
      readUrl: async () => undefined,
      close: () => void (m.closed = true),
    };
    return uploader;
  });
  return { pool, made };
}

const storage = (bucket: string) => ({ vendor: 1, region: 0, bucket, accessKey: 'a', secretKey: 's' }) as StorageConfig;
const req = { key: 'k.ts', body: { data: new Uint8Array(1) }, contentType: 'video/mp2t' };
const tick = () => new Promise((r) => setImmediate(r));

test('one uploader per session, made on first use; new settings retire it once its uploads end', async () => {
  const { pool, made } = rig();
  const first = pool.put('s1', storage('a'), req);
  const second = pool.put('s1', storage('a'), req);
  assert.equal(made.length, 1);
  pool.retire('s1');
  assert.equal(made[0]!.closed, false, 'two uploads still run');
  const third = pool.put('s1', storage('b'), req);
  assert.deepEqual(made.map((m) => m.bucket), ['a', 'b']);
  made[0]!.puts[0]!();
  await first;
  assert.equal(made[0]!.closed, false);
  made[0]!.puts[1]!();
  await second;
  assert.equal(made[0]!.closed, true, 'closed after its last upload');
  made[1]!.puts[0]!();
  await third;
  pool.retire('s1');
  assert.equal(made[1]!.closed, true, 'an idle uploader closes at once');
  pool.retire('nobody');
});

test('close closes current and retired uploaders', async () => {
  const { pool, made } = rig();
  void pool.put('s1', storage('a'), req);
  pool.retire('s1');
  void pool.put('s2', storage('b'), req);
  await tick();
  pool.close();
  assert.deepEqual(made.map((m) => m.closed), [true, true]);
});
