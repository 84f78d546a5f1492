// The backup spool against a real S3 server (s3rver) on loopback, on SQLite and PostgreSQL, with a test clock.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { createLogger } from '../../log/index.ts';
import { processTag } from '../../process/index.ts';
import { unusedPid } from '../../process/testing.ts';
import { openTestDatabase, TEST_DIALECTS, type TestDatabase, waitUntil } from '../../testing/index.ts';
import type { StorageSettings } from '../config.ts';
import { sealingKey } from '../seal.ts';
import type { StorageConfig } from '../storage-config.ts';
import { S3RVER_KEY, startTestS3Server, type TestS3Server } from '../testing/s3-server.ts';
import { createUploader } from '../uploaders/factory.ts';
import { UploadSpool } from './engine.ts';
import { SpoolStore } from './store.ts';
import type { StorageEvent } from './types.ts';

let s3: TestS3Server;
const work = mkdtempSync(join(tmpdir(), 'reeltime-spool-'));
before(async () => {
  s3 = await startTestS3Server(['recordings']);
});
after(async () => {
  await s3.close();
  rmSync(work, { recursive: true, force: true });
});

const storage = (over: Partial<StorageConfig> = {}): StorageConfig => ({
  vendor: 1,
  region: 0,
  bucket: 'recordings',
  accessKey: S3RVER_KEY,
  secretKey: 'sEcReT-value-123',
  fileNamePrefix: ['rec', 'x1'],
  ...over,
});

function settings(dir: string, over: Partial<StorageSettings> = {}): StorageSettings {
  return {
    routeAllToLocal: false,
    endpoints: { 1: s3.url },
    bucketDir: join(dir, 'bucket'),
    serveBucket: true,
    bucketPublic: true,
    signedUrlTtlSeconds: 3600,
    spoolDir: join(dir, 'spool'),
    spoolMaxBytes: 100 * 1024 * 1024,
    concurrency: 3,
    retryBaseMs: 1000,
    retryMaxMs: 30_000,
    partSizeBytes: 5 * 1024 * 1024,
    leaseMs: 60_000,
    ...over,
  };
}

interface Rig {
  spool: UploadSpool;
  events: StorageEvent[];
  clock: ManualClock;
  dir: string;
  config: StorageSettings;
  db: TestDatabase;
}

/** Everything the spool logs, to check that secrets never reach the log. */
const logLines: string[] = [];
const logSink = { write: (line: string) => void logLines.push(line) };

function makeSpool(db: TestDatabase, dir: string, clock: ManualClock, over: Partial<StorageSettings> = {}, node?: string): Rig {
  const config = settings(dir, over);
  const spool = new UploadSpool({
    ...(node ? { node } : {}),
    store: new SpoolStore(db.db),
    config,
    clock,
    log: createLogger('info', logSink),
    sealKey: sealingKey('5CFd2fd1755d40ecb72977518be15d3b'),
  });
  const events: StorageEvent[] = [];
  spool.onEvent((e) => events.push(e));
  return { spool, events, clock, dir, config, db };
}


let fileNo = 0;
function segment(dir: string, bytes: number): string {
  const p = join(dir, `seg-${fileNo++}.ts`);
  writeFileSync(p, Buffer.alloc(bytes, fileNo % 251));
  return p;
}

const inBucket = (sid: string) => s3Objects(sid);
async function s3Objects(prefix: string): Promise<string[]> {
  const u = createUploader(storage(), settings(work), Date.now);
  try {
    return (await u.list(prefix)).map((o) => o.key).sort();
  } finally {
    u.close();
  }
}

const spoolFiles = (dir: string): string[] =>
  existsSync(join(dir, 'spool')) ? readdirSync(join(dir, 'spool'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : [];

for (const dialect of TEST_DIALECTS) {
  test(`${dialect}: files go through the spool to S3; a re-enqueued playlist uploads its newest copy`, async () => {
    const db = await openTestDatabase(dialect);
    const dir = mkdtempSync(join(work, 'a-'));
    const r = makeSpool(db, dir, new ManualClock());
    try {
      await r.spool.start();
      const sid = `sidA${dialect}`;
      const session = await r.spool.openSession({ sid, appId: 'app', cname: 'c1', uid: '999', storage: storage({ fileNamePrefix: [sid] }) });
      const key = (n: string) => session.objectKey(n);
      assert.equal(key('a.ts'), `${sid}/a.ts`);
      for (let i = 0; i < 3; i++) assert.ok((await session.enqueue(segment(dir, 300_000), key(`s${i}.ts`))).ok);
      // move: the recorder's file is taken over by the spool.
      const moved = segment(dir, 1000);
      assert.ok((await session.enqueue(moved, key('moved.jpg'), { move: true, contentType: 'image/jpeg' })).ok);
      assert.equal(existsSync(moved), false);
      const playlist = join(dir, 'index.m3u8');
      writeFileSync(playlist, '#EXTM3U\n');
      assert.ok((await session.enqueue(playlist, key('index.m3u8'))).ok);
      writeFileSync(playlist, '#EXTM3U\n#EXT-X-ENDLIST\n');
      assert.ok((await session.enqueue(playlist, key('index.m3u8'))).ok);
      const bad = await session.enqueue(playlist, '../escape.m3u8');
      assert.equal(bad.ok, false);
      const done = await session.finish();
      assert.equal(done.uploadingStatus, 'uploaded', JSON.stringify(r.events));
      assert.deepEqual(done.files.map((f) => f.key).sort(), [`${sid}/index.m3u8`, `${sid}/moved.jpg`, `${sid}/s0.ts`, `${sid}/s1.ts`, `${sid}/s2.ts`]);
      assert.equal((await session.status()).progress, 10000);
      assert.ok(done.files.every((f) => f.state === 'uploaded'));
      assert.deepEqual(await inBucket(sid), done.files.map((f) => f.key).sort());
      const u = createUploader(storage(), r.config, Date.now);
      assert.equal((await u.get(`${sid}/index.m3u8`))?.toString(), '#EXTM3U\n#EXT-X-ENDLIST\n');
      u.close();
      assert.equal(s3.writes.filter((k) => k === `${sid}/index.m3u8`).length <= 2, true);
      assert.deepEqual(spoolFiles(dir), []);
      assert.equal(r.spool.spoolBytes, 0);
      await waitUntil(() => r.events.some((e) => e.kind === 'uploaded' && e.sid === sid), { timeoutMs: 30_000, what: 'uploaded event' });
      assert.equal(await r.spool.uploadingStatus(sid), 'uploaded');
      assert.equal(await r.spool.uploadingStatus('nope'), 'unknown');
    } finally {
      await r.spool.close();
      await db.close();
    }
  });

  test(`${dialect}: S3 outage: backuped, then after 60 s of test clock every file arrives exactly once`, async () => {
    const db = await openTestDatabase(dialect);
    const dir = mkdtempSync(join(work, 'b-'));
    const r = makeSpool(db, dir, new ManualClock());
    const sid = `sidB${dialect}`;
    try {
      await r.spool.start();
      const session = await r.spool.openSession({ sid, appId: 'app', cname: 'c1', uid: '999', storage: storage({ fileNamePrefix: [sid] }) });
      const statuses: string[] = [];
      session.onEvent((e) => statuses.push(e.kind));
      await s3.stop();
      const keys = [0, 1, 2, 3, 4].map((i) => session.objectKey(`s${i}.ts`));
      for (const k of keys) assert.ok((await session.enqueue(segment(dir, 200_000), k)).ok);
      const done = await session.finish();
      assert.equal(done.uploadingStatus, 'backuped');
      assert.equal(await r.spool.uploadingStatus(sid), 'backuped');
      assert.equal(r.events.filter((e) => e.kind === 'backuped').length, 5);
      const failed = r.events.filter((e) => e.kind === 'upload-failed');
      assert.ok(failed.length > 0 && failed.every((e) => !e.configError && /could not be reached/.test(e.message) && !/ECONN/.test(e.message)));
      assert.equal(spoolFiles(dir).length, 5, 'every file is kept in the spool');
      // The log says it once for the session and the round, with the count, not once per file.
      const lines = logLines.map((l) => JSON.parse(l) as { sid?: string; msg: string; failed?: number; waiting?: number; detail?: string });
      const ofSession = lines.filter((l) => l.sid === sid && /upload/.test(l.msg) && /fail/.test(l.msg));
      assert.equal(ofSession.length, 1, JSON.stringify(ofSession));
      assert.equal(ofSession[0]!.failed, 5);
      assert.equal(ofSession[0]!.waiting, 5);
      assert.match(ofSession[0]!.detail ?? '', /ECONNREFUSED/);
      await s3.restart();
      r.clock.advance(60_000);
      await waitUntil(() => r.events.some((e) => e.kind === 'uploaded' && e.sid === sid), { timeoutMs: 30_000, what: 'all uploaded' });
      assert.deepEqual(await inBucket(sid), [...keys].sort());
      for (const k of keys) assert.equal(s3.writes.filter((w) => w === k).length, 1, `${k} written once`);
      assert.equal(await r.spool.uploadingStatus(sid), 'uploaded');
      assert.ok(statuses.indexOf('backuped') < statuses.lastIndexOf('uploaded'));
      assert.deepEqual(spoolFiles(dir), []);
    } finally {
      if (!s3.port) await s3.restart();
      await r.spool.close();
      await db.close();
    }
  });

  test(`${dialect}: restart: files left in the spool by a killed process arrive after start`, async () => {
    const db = await openTestDatabase(dialect);
    const dir = mkdtempSync(join(work, 'c-'));
    const clock = new ManualClock();
    const first = makeSpool(db, dir, clock);
    const sid = `sidC${dialect}`;
    const keys: string[] = [];
    try {
      await first.spool.start();
      const session = await first.spool.openSession({ sid, appId: 'app', cname: 'c1', uid: '999', storage: storage({ fileNamePrefix: [sid] }) });
      await s3.stop();
      for (let i = 0; i < 4; i++) {
        keys.push(session.objectKey(`s${i}.ts`));
        assert.ok((await session.enqueue(segment(dir, 100_000), keys[i]!)).ok);
      }
      await waitUntil(() => first.events.filter((e) => e.kind === 'backuped').length === 4, { timeoutMs: 30_000, what: 'first attempts' });
    } finally {
      await first.spool.close(); // "killed": never finished
    }
    await s3.restart();
    const second = makeSpool(db, dir, clock);
    try {
      await second.spool.start();
      await waitUntil(() => second.events.filter((e) => e.kind === 'file-uploaded').length === 4, { timeoutMs: 30_000, what: 'uploads after restart' });
      assert.deepEqual(await inBucket(sid), [...keys].sort());
      const again = await second.spool.session(sid);
      assert.ok(again);
      const done = await again.finish();
      assert.equal(done.uploadingStatus, 'uploaded');
      assert.equal(done.files.length, 4);
      assert.deepEqual(spoolFiles(dir), []);
    } finally {
      await second.spool.close();
      await db.close();
    }
  });

  test(`${dialect}: crash: a live process's files are left alone; after its lease runs out the node's next process adopts them`, async () => {
    const db = await openTestDatabase(dialect);
    const dir = mkdtempSync(join(work, 'f-'));
    const clock = new ManualClock();
    const a = makeSpool(db, dir, clock);
    const other = makeSpool(db, mkdtempSync(join(work, 'g-')), clock, {}, 'another-host:/spool');
    const b = makeSpool(db, dir, clock);
    const sid = `sidF${dialect}`;
    try {
      await a.spool.start();
      await other.spool.start();
      const session = await a.spool.openSession({ sid, appId: 'app', cname: 'c1', uid: '9', storage: storage({ fileNamePrefix: [sid] }) });
      await s3.stop();
      await session.enqueue(segment(dir, 5000), session.objectKey('a.ts'));
      await session.enqueue(segment(dir, 5000), session.objectKey('b.ts'));
      await waitUntil(() => a.events.filter((e) => e.kind === 'backuped').length === 2, { timeoutMs: 30_000, what: 'first attempts' });
      await a.spool.close({ release: false }); // a crash: its claims stay until the lease expires
      await s3.restart();
      await b.spool.start();
      clock.advance(30_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(b.events.filter((e) => e.kind === 'file-uploaded').length, 0, 'lease still held');
      assert.equal(await b.spool.uploadingStatus(sid), 'backuped');
      // Lease renewal ticks run on the test clock; step it until the adopting tick has run (slow machines too).
      const adopted = () => b.events.filter((e) => e.kind === 'file-uploaded').length === 2;
      for (let i = 0; i < 30 && !adopted(); i++) {
        clock.advance(20_000);
        await waitUntil(adopted, { timeoutMs: 1000, what: 'a tick' }).catch(() => undefined);
      }
      await waitUntil(() => b.events.filter((e) => e.kind === 'file-uploaded').length === 2, { timeoutMs: 30_000, what: 'adopted uploads' });
      assert.equal(other.events.length, 0, 'a process of another node never touches these files');
      assert.deepEqual(await inBucket(sid), [`${sid}/a.ts`, `${sid}/b.ts`]);
      assert.equal(await b.spool.uploadingStatus(sid), 'uploaded');
    } finally {
      if (!s3.port) await s3.restart();
      await b.spool.close();
      await other.spool.close();
      await db.close();
    }
  });

  test(`${dialect}: crash of another process of this machine (SIGKILL): its files are adopted at once, not after its lease`, async () => {
    const db = await openTestDatabase(dialect);
    const dir = mkdtempSync(join(work, 'k-'));
    const clock = new ManualClock();
    const a = makeSpool(db, dir, clock);
    const b = makeSpool(db, dir, clock);
    const sid = `sidK${dialect}`;
    try {
      await a.spool.start();
      const session = await a.spool.openSession({ sid, appId: 'app', cname: 'c1', uid: '9', storage: storage({ fileNamePrefix: [sid] }) });
      await s3.stop();
      await session.enqueue(segment(dir, 5000), session.objectKey('a.ts'));
      await waitUntil(() => a.events.some((e) => e.kind === 'backuped'), { timeoutMs: 30_000, what: 'a first attempt' });
      await a.spool.close({ release: false });
      // Both spools live in this test's process; the rows get the owner a killed process would have left.
      const deadOwner = `0123456789abcdef@${processTag().split('.')[0]}.${unusedPid()}.12345`;
      await db.db.updateTable('storage_files').set({ owner: deadOwner }).where('sid', '=', sid).execute();
      await s3.restart();
      await b.spool.start(); // the clock has not moved: the lease has not run out
      await waitUntil(() => b.events.some((e) => e.kind === 'file-uploaded'), { timeoutMs: 30_000, what: 'the adopted upload' });
      assert.deepEqual(await inBucket(sid), [`${sid}/a.ts`]);
    } finally {
      if (!s3.port) await s3.restart();
      await b.spool.close();
      await db.close();
    }
  });

  test(`${dialect}: wrong credentials and a missing bucket: storage-config-error, nothing lost, fixed by updateStorage`, async () => {
    const db = await openTestDatabase(dialect);
    const dir = mkdtempSync(join(work, 'd-'));
    const r = makeSpool(db, dir, new ManualClock());
    try {
      await r.spool.start();
      for (const [name, wrong, re] of [
        ['key', storage({ accessKey: 'WRONGKEY42' }), /access key is not known/],
        ['bucket', storage({ bucket: 'missing-bucket' }), /bucket does not exist/],
      ] as const) {
        const sid = `sidD${name}${dialect}`;
        const session = await r.spool.openSession({ sid, appId: 'app', cname: 'c1', uid: '9', storage: { ...wrong, fileNamePrefix: [sid] } });
        await session.enqueue(segment(dir, 1000), session.objectKey('a.ts'));
        await session.enqueue(segment(dir, 1000), session.objectKey('b.ts'));
        const done = await session.finish();
        assert.equal(done.uploadingStatus, 'backuped');
        const errors = r.events.filter((e) => e.kind === 'storage-config-error' && e.sid === sid);
        assert.equal(errors.length, 1, 'reported once per session');
        assert.match((errors[0] as { message: string }).message, re);
        assert.doesNotMatch(JSON.stringify(r.events), /sEcReT-value-123|WRONGKEY42/);
        assert.ok(logLines.some((l) => /storage configuration error/.test(l)));
        assert.doesNotMatch(logLines.join(''), /sEcReT-value-123/);
        const st = await session.status();
        assert.equal(st.pending, 2);
        assert.equal(st.progress, 0);
        assert.equal(st.uploadingStatus, 'backuped');
        await session.updateStorage(storage({ fileNamePrefix: [sid] }));
        await waitUntil(() => r.events.some((e) => e.kind === 'uploaded' && e.sid === sid), { timeoutMs: 30_000, what: 'uploaded after fix' });
        assert.deepEqual(await inBucket(sid), [`${sid}/a.ts`, `${sid}/b.ts`]);
      }
      // The persisted storage config is sealed: the secret is not in the database in clear.
      const rows = await db.db.selectFrom('storage_sessions').select('storage').execute();
      assert.ok(rows.length >= 2);
      for (const row of rows) assert.doesNotMatch(row.storage, /sEcReT|WRONGKEY/);
    } finally {
      await r.spool.close();
      await db.close();
    }
  });
}

test('spool full: the caller gets an error result, an event is reported, nothing already spooled is deleted', async () => {
  const db = await openTestDatabase('sqlite');
  const dir = mkdtempSync(join(work, 'e-'));
  const r = makeSpool(db, dir, new ManualClock(), { spoolMaxBytes: 250_000 });
  try {
    await r.spool.start();
    await s3.stop();
    const session = await r.spool.openSession({ sid: 'sidE', appId: 'app', cname: 'c', uid: '9', storage: storage({ fileNamePrefix: ['sidE'] }) });
    assert.ok((await session.enqueue(segment(dir, 100_000), 'sidE/a.ts')).ok);
    assert.ok((await session.enqueue(segment(dir, 100_000), 'sidE/b.ts')).ok);
    const full = await session.enqueue(segment(dir, 100_000), 'sidE/c.ts');
    assert.equal(full.ok, false);
    assert.equal(!full.ok && full.reason, 'spool-full');
    assert.ok(r.events.some((e) => e.kind === 'spool-full' && e.fileName === 'sidE/c.ts'));
    assert.equal(spoolFiles(dir).length, 2);
    await s3.restart();
    r.clock.advance(60_000);
    const done = await session.finish();
    await waitUntil(() => r.events.filter((e) => e.kind === 'file-uploaded').length === 2, { timeoutMs: 30_000, what: 'drained' });
    assert.ok(['uploaded', 'backuped'].includes(done.uploadingStatus));
    assert.deepEqual(await inBucket('sidE/'), ['sidE/a.ts', 'sidE/b.ts']);
  } finally {
    if (!s3.port) await s3.restart();
    await r.spool.close();
    await db.close();
  }
});

test('a file whose manifest write failed after its upload (the database away) is tried again within 250 ms of test clock, not after the upload backoff cap', async () => {
  const db = await openTestDatabase('sqlite');
  const dir = mkdtempSync(join(work, 'k-'));
  const clock = new ManualClock();
  const store = new SpoolStore(db.db);
  let failures = 2;
  const updateFile = store.updateFile.bind(store);
  store.updateFile = async (id, patch) => {
    if (patch.state === 'uploaded' && failures-- > 0) throw new Error('Connection terminated unexpectedly');
    return updateFile(id, patch);
  };
  const spool = new UploadSpool({ store, config: settings(dir), clock, log: createLogger('info', logSink), sealKey: sealingKey('5CFd2fd1755d40ecb72977518be15d3b') });
  const sid = 'sidBookkeeping';
  try {
    await spool.start();
    const session = await spool.openSession({ sid, appId: 'app', cname: 'c1', uid: '999', storage: storage({ fileNamePrefix: [sid] }) });
    const uploaded: string[] = [];
    session.onEvent((e) => e.kind === 'file-uploaded' && uploaded.push(e.fileName));
    assert.ok((await session.enqueue(segment(dir, 1000), session.objectKey('s0.ts'))).ok);
    await waitUntil(() => failures === 1, { timeoutMs: 30_000, what: 'the first manifest write to fail' });
    // Each failure waits on the test clock: 250 ms, then 500 ms.
    await waitUntil(() => (clock.advance(250), failures === 0 || uploaded.length > 0), { timeoutMs: 30_000, intervalMs: 20, what: 'the second attempt' });
    await waitUntil(() => (clock.advance(250), uploaded.length > 0), { timeoutMs: 30_000, intervalMs: 20, what: 'the third attempt, written' });
    assert.ok(clock.now() - Date.UTC(2026, 0, 1) < 10_000, `retried within ${clock.now() - Date.UTC(2026, 0, 1)} ms of test clock`);
    assert.deepEqual(uploaded, [`${sid}/s0.ts`]);
    assert.equal((await session.finish()).uploadingStatus, 'uploaded');
  } finally {
    await spool.close();
    await db.close();
  }
});
