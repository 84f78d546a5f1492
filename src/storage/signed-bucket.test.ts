// Who may read recordings: the local bucket in production answers only signed, unexpired links and the customer's
// credentials (docs/storage.md).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ManualClock } from '../clock/index.ts';
import { TEST_AUTH } from '../recording/testing/index.ts';
import { startTestServer } from '../testing/index.ts';
import type { StorageModule } from './module.ts';
import { playlistTargets, rewritePlaylist, signPlaylist, urlSigningKey } from './signed-url.ts';

const work = mkdtempSync(join(tmpdir(), 'reeltime-signed-'));
after(() => rmSync(work, { recursive: true, force: true }));

const storageOf = (s: { modules: readonly { name: string }[] }) => s.modules.find((m) => m.name === 'storage') as StorageModule;
const T0 = Date.UTC(2026, 0, 1, 12);

test('production: unsigned, tampered and expired links are refused; signed ones and the customer\'s credentials play, with ranges and signed playlists', async () => {
  const clock = new ManualClock(T0);
  // Production defaults (bucketPublic false), with recordings still routed to the local bucket it serves.
  const s = await startTestServer({
    clock,
    env: { REELTIME_ENV: 'production' },
    values: { storage: { routeAllToLocal: true, serveBucket: true, signedUrlTtlSeconds: 600 } },
  });
  try {
    assert.equal(s.config.storage.bucketPublic, false);
    const storage = storageOf(s);
    const session = await storage.openSession({
      sid: 'sidP',
      appId: s.config.appId,
      cname: 'room',
      uid: '1',
      storage: { vendor: 1, region: 0, bucket: 'rec', accessKey: 'ak', secretKey: 'sk', fileNamePrefix: ['d'] },
    });
    const segment = Buffer.from(Array.from({ length: 4000 }, (_, i) => i % 251));
    const files: Record<string, Buffer> = {
      'p.m3u8': Buffer.from('#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\np_0.ts\n#EXT-X-ENDLIST\n'),
      'p_0.ts': segment,
    };
    for (const [name, data] of Object.entries(files)) {
      const p = join(work, name);
      writeFileSync(p, data);
      assert.ok((await session.enqueue(p, session.objectKey(name))).ok);
    }
    assert.equal((await session.finish()).uploadingStatus, 'uploaded');

    const plain = await fetch(`${s.url}/bucket/rec/d/p_0.ts`);
    assert.equal(plain.status, 403);
    assert.equal(((await plain.json()) as { error: string }).error, 'signature_missing');

    // The customer's own credentials (the recording API's Basic auth) read without a signature, ranges included;
    // other credentials do not.
    const byCustomer = await fetch(`${s.url}/bucket/rec/d/p_0.ts`, { headers: { authorization: TEST_AUTH, range: 'bytes=10-19' } });
    assert.equal(byCustomer.status, 206);
    assert.deepEqual(Buffer.from(await byCustomer.arrayBuffer()), segment.subarray(10, 20));
    assert.equal((await fetch(`${s.url}/bucket/rec/d/p.m3u8`, { headers: { authorization: TEST_AUTH } })).status, 200);
    const stranger = await fetch(`${s.url}/bucket/rec/d/p_0.ts`, { headers: { authorization: `Basic ${btoa('test-customer:nope')}` } });
    assert.equal(stranger.status, 403);

    const tsUrl = storage.playbackUrl('rec', 'd/p_0.ts')!;
    assert.match(tsUrl, /^http:\/\/127\.0\.0\.1:\d+\/bucket\/rec\/d\/p_0\.ts\?expires=\d+&signature=[\w-]+$/);
    const whole = await fetch(tsUrl);
    assert.equal(whole.status, 200);
    assert.deepEqual(Buffer.from(await whole.arrayBuffer()), segment);
    const part = await fetch(tsUrl, { headers: { range: 'bytes=100-199' } });
    assert.equal(part.status, 206);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), segment.subarray(100, 200));

    // The signature covers one object: reused on another key, or altered, it is refused.
    const query = tsUrl.slice(tsUrl.indexOf('?'));
    assert.equal((await fetch(`${s.url}/bucket/rec/d/p.m3u8${query}`)).status, 403);
    const tampered = tsUrl.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 1}`);
    assert.equal(((await (await fetch(tampered)).json()) as { error: string }).error, 'signature_invalid');

    // A player resolves segment names against the playlist URL: each carries its own signature.
    const listUrl = storage.playbackUrl('rec', 'd/p.m3u8')!;
    const list = await (await fetch(listUrl)).text();
    const segLine = list.split('\n').find((l) => l.startsWith('p_0.ts?'));
    assert.ok(segLine, list);
    const seg = await fetch(new URL(segLine, listUrl));
    assert.equal(seg.status, 200);
    assert.deepEqual(Buffer.from(await seg.arrayBuffer()), segment);

    clock.advance(601_000);
    const late = await fetch(tsUrl);
    assert.equal(late.status, 403);
    assert.equal(((await late.json()) as { error: string }).error, 'signature_expired');
  } finally {
    await s.close();
  }
});

test('production, several customers: credentials read only their own apps\' objects (another\'s is 404, like a missing one); credentialed answers are private, signed ones cached no longer than the signature', async () => {
  const clock = new ManualClock(T0);
  const OTHER_APP = 'b'.repeat(32);
  const otherAuth = `Basic ${btoa('other-customer:other-secret-0123456789')}`;
  const s = await startTestServer({
    clock,
    env: { REELTIME_ENV: 'production' },
    values: {
      recording: { customers: [{ id: 'other-customer', secret: 'other-secret-0123456789', appIds: [OTHER_APP] }] },
      storage: { routeAllToLocal: true, serveBucket: true, signedUrlTtlSeconds: 600 },
    },
  });
  try {
    const storage = storageOf(s);
    const put = async (sid: string, appId: string, prefix: string) => {
      const session = await storage.openSession({
        sid,
        appId,
        cname: 'room',
        uid: '1',
        storage: { vendor: 1, region: 0, bucket: 'shared', accessKey: 'ak', secretKey: 'sk', fileNamePrefix: [prefix] },
      });
      for (const name of ['p.m3u8', 'p_0.ts']) {
        const p = join(work, `${sid}-${name}`);
        writeFileSync(p, name.endsWith('.ts') ? Buffer.alloc(1000, 7) : '#EXTM3U\n#EXTINF:2.0,\np_0.ts\n#EXT-X-ENDLIST\n');
        assert.ok((await session.enqueue(p, session.objectKey(name))).ok);
      }
      assert.equal((await session.finish()).uploadingStatus, 'uploaded');
    };
    await put('sidMine', s.config.appId, 'mine');
    await put('sidTheirs', OTHER_APP, 'theirs');
    // Bodies are read at once: an unread one keeps its connection busy, and the server's close waits for it.
    const get = async (path: string, authorization?: string) => {
      const r = await fetch(`${s.url}/bucket/shared/${path}`, authorization ? { headers: { authorization } } : {});
      return new Response(await r.arrayBuffer(), { status: r.status, headers: r.headers });
    };

    const own = await get('mine/p_0.ts', TEST_AUTH);
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('cache-control'), 'private, max-age=3600');
    assert.match(own.headers.get('vary') ?? '', /authorization/i);
    assert.equal((await get('mine/p.m3u8', TEST_AUTH)).headers.get('cache-control'), 'private, no-cache');
    assert.equal((await get('theirs/p_0.ts', otherAuth)).status, 200);

    for (const [path, auth] of [['theirs/p_0.ts', TEST_AUTH], ['theirs/p.m3u8', TEST_AUTH], ['mine/p_0.ts', otherAuth], ['mine/nothing.ts', TEST_AUTH]] as const) {
      const r = await get(path, auth);
      assert.equal(r.status, 404, path);
      assert.deepEqual(await r.json(), { error: 'not_found', message: 'no such object' }, path);
    }

    // A signed link: cacheable by anyone holding it, until the signature ends and no longer.
    const signed = storage.playbackUrl('shared', 'mine/p_0.ts')!;
    const fresh = await fetch(signed);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers.get('cache-control'), 'public, max-age=600');
    // A player that sends another kind of Authorization with its signed links is not failing logins.
    await fresh.arrayBuffer();
    for (let i = 0; i < 30; i++) {
      const r = await fetch(signed, { headers: { authorization: 'Bearer app-session' } });
      await r.arrayBuffer();
      assert.equal(r.status, 200);
    }
    clock.advance(450_000);
    const later = await fetch(signed);
    await later.arrayBuffer();
    assert.equal(later.headers.get('cache-control'), 'public, max-age=150');
  } finally {
    await s.close();
  }
});

test('signPlaylist leaves absolute URIs alone and signs relative ones, EXT-X-MAP included', () => {
  const key = urlSigningKey('5CFd2fd1755d40ecb72977518be15d3b');
  const out = signPlaylist('#EXTM3U\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:2,\nseg 1.ts\nhttps://cdn/x.ts\n/abs.ts\n../../../out.ts\n', key, 'b', 'a/p.m3u8', 99);
  const lines = out.split('\n');
  assert.match(lines[1]!, /^#EXT-X-MAP:URI="init\.mp4\?expires=99&signature=[\w-]+"$/);
  assert.match(lines[3]!, /^seg 1\.ts\?expires=99&signature=/);
  assert.equal(lines[4], 'https://cdn/x.ts');
  assert.equal(lines[5], '/abs.ts');
  assert.equal(lines[6], '../../../out.ts');
});

test('a watch link\'s playlist: the objects its relative URIs name, and each replaced by its own link', () => {
  const text = '#EXTM3U\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:2,\nseg%201.ts\nhttps://cdn/x.ts\nsub/../seg2.ts\n../../../out.ts\nseg%201.ts\n';
  assert.deepEqual(playlistTargets(text, 'rec/a/p.m3u8'), ['rec/a/init.mp4', 'rec/a/seg 1.ts', 'rec/a/seg2.ts']);
  const out = rewritePlaylist(text, 'rec/a/p.m3u8', (target) => (target.endsWith('.ts') ? `https://store/${encodeURIComponent(target)}?sig=1` : undefined));
  assert.deepEqual(out.split('\n'), [
    '#EXTM3U',
    '#EXT-X-MAP:URI="init.mp4"',
    '#EXTINF:2,',
    'https://store/rec%2Fa%2Fseg%201.ts?sig=1',
    'https://cdn/x.ts',
    'https://store/rec%2Fa%2Fseg2.ts?sig=1',
    '../../../out.ts',
    'https://store/rec%2Fa%2Fseg%201.ts?sig=1',
    '',
  ]);
});
