// A production server's storage module uploads through the outbound guard (issue 25 item 2): a session whose
// storage endpoint is a loopback address (as a session stored before the start-time check existed, or handed over
// from another process, would be) gets no request at all; the customer reads one configuration error that names
// neither the address nor whether the port is open. In development the same endpoint is used (local S3 servers).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer } from '../testing/index.ts';
import type { StorageModule } from './module.ts';
import type { StorageEvent } from './spool/index.ts';
import { S3RVER_KEY, startTestS3Server, type TestS3Server } from './testing/index.ts';

const work = mkdtempSync(join(tmpdir(), 'reeltime-storage-guard-'));
let s3: TestS3Server;
before(async () => {
  s3 = await startTestS3Server(['guarded']);
});
after(async () => {
  await s3.close();
  rmSync(work, { recursive: true, force: true });
});

const storageOf = (s: { modules: readonly { name: string }[] }) => s.modules.find((m) => m.name === 'storage') as StorageModule;

for (const env of ['production', 'development'] as const) {
  test(`${env}: a loopback storage endpoint is ${env === 'production' ? 'refused at connect time' : 'used'}`, async () => {
    const s = await startTestServer({ env: { REELTIME_ENV: env }, values: { storage: { routeAllToLocal: false } } });
    try {
      const sid = `sid${env}`;
      const session = await storageOf(s).openSession({
        sid,
        appId: s.config.appId,
        cname: 'room',
        uid: '1',
        storage: { vendor: 11, region: 0, bucket: 'guarded', accessKey: S3RVER_KEY, secretKey: S3RVER_KEY, fileNamePrefix: [env], extensionParams: { endpoint: s3.url } },
      });
      const events: StorageEvent[] = [];
      session.onEvent((e) => events.push(e));
      const file = join(work, `${env}.ts`);
      writeFileSync(file, Buffer.alloc(2000, 7));
      assert.ok((await session.enqueue(file, session.objectKey('a.ts'))).ok);
      const done = await session.finish();
      if (env === 'development') {
        assert.equal(done.uploadingStatus, 'uploaded');
        assert.ok(s3.writes.includes('development/a.ts'));
        return;
      }
      assert.equal(done.uploadingStatus, 'backuped');
      const configError = events.find((e) => e.kind === 'storage-config-error');
      assert.ok(configError && 'message' in configError, JSON.stringify(events));
      assert.match(configError.message, /the storage endpoint is not a public address/);
      assert.doesNotMatch(JSON.stringify(events), /127\.0\.0\.1|ECONN|refused \(/);
      assert.deepEqual(s3.writes.filter((k) => k.startsWith('production/')), [], 'nothing reached the loopback server');
    } finally {
      await s.close();
    }
  });
}
