// Individual recording into a real S3 API server (s3rver on loopback) instead of the local bucket, and the uploader
// error event when the bucket is missing.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestS3Server } from '../../storage/testing/s3-server.ts';
import { launchTestChromium } from '../../testing/chromium.ts';
import { openSessionPage } from '../../testing/console-page.ts';
import { APP, BUCKET, rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { slicesWritten } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';

const request = (cname: string) => ({
  token: rtcToken(cname, 9101, 2),
  // s3rver's built-in credentials.
  storageConfig: { ...storageConfig(), accessKey: 'S3RVER', secretKey: 'S3RVER' },
  recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 0 },
  recordingFileConfig: { avFileType: ['hls'] },
});

test('individual recording uploads slices and playlists to an S3 API server; a missing bucket gives uploader error 32 and warnings 32 and 31', async () => {
  // The bucket lets the console's pages read it (any loopback port: the server's is known only later).
  const s3 = await startTestS3Server([BUCKET], { corsOrigin: 'http://127.0.0.1:*' });
  const missing = await startTestS3Server(['some-other-bucket']);
  try {
    // 1. The bucket exists: objects land in S3, the stop answers uploaded.
    const h = await startHarness({ storage: { routeAllToLocal: false, endpoints: { '1': s3.url } } });
    try {
      const cname = 'ind-s3';
      await h.publish({ cname, uid: 111, color: 'red', toneHz: 440 });
      const { resourceId, sid } = await h.startRecording(cname, '9101', request(cname));
      // streamTypes 0: audio only; a few seconds of it on disk.
      await waitUntil(() => slicesWritten(join(h.server.dataDir, 'recorder'), 32 * 1024).length > 0, { timeoutMs: 60_000, intervalMs: 200, what: 'audio on disk' });
      const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9101', clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      assert.equal((stop.body.serverResponse as { uploadingStatus: string }).uploadingStatus, 'uploaded');
      assert.ok(s3.writes.some((k) => k.includes(sid) && k.endsWith('.m3u8')), s3.writes.join('\n'));
      assert.ok(s3.writes.some((k) => k.includes(sid) && k.endsWith('.ts')), s3.writes.join('\n'));
      // What a CDN in front of the bucket reads: the playlist revalidated on every request, a slice kept.
      const client = new S3Client({ endpoint: s3.url, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      try {
        const cacheControl = async (suffix: string) => {
          const key = s3.writes.find((k) => k.includes(sid) && k.endsWith(suffix))!;
          return (await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).CacheControl;
        };
        assert.equal(await cacheControl('.m3u8'), 'no-cache');
        assert.equal(await cacheControl('.ts'), 'max-age=3600, immutable');
      } finally {
        client.destroy();
      }
      // The sessions API gives the playlist a watch link: a player with no credentials of its own gets the playlist
      // from the customer's bucket with each slice named by an S3 presigned link, and plays the slices from there.
      const detail = await h.api('GET', `/v1/apps/${APP}/cloud_recording/sessions/${sid}`);
      assert.equal(detail.status, 200, JSON.stringify(detail.body));
      const files = detail.body.files as { fileName: string; url?: string }[];
      const playlist = files.find((f) => f.fileName.endsWith('.m3u8'));
      assert.match(playlist?.url ?? '', new RegExp(`^${h.server.url}/watch/${APP}/${BUCKET}/.*\\.m3u8\\?expires=\\d+&signature=`), JSON.stringify(files));
      const got = await fetch(playlist!.url!);
      assert.equal(got.status, 200);
      const text = await got.text();
      assert.match(text, /^#EXTM3U\n[\s\S]*#EXT-X-ENDLIST\n$/);
      const slices = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      assert.ok(slices.length > 0 && slices.every((l) => l.startsWith(`${s3.url}/${BUCKET}/`) && /X-Amz-Signature=/.test(l)), text);
      const slice = await fetch(slices[0]!);
      assert.equal(slice.status, 200);
      assert.ok((await slice.arrayBuffer()).byteLength > 1000);

      // The console plays it in Chromium: hls.js reads the watch link from reeltime and each slice from the bucket,
      // cross-origin (the bucket's CORS rule allows the console's origin).
      const browser = await launchTestChromium(['--autoplay-policy=no-user-gesture-required']);
      try {
        const failures: string[] = [];
        // Listened for before the page opens: hls.js may have fetched all it plays before openSessionPage returns
        // (a whole-suite run of session 28 saw no response on a listener added after it).
        const fromBucket: string[] = [];
        browser.context.on('response', (r) => void (r.url().startsWith(`${s3.url}/${BUCKET}/`) && fromBucket.push(`${r.status()} ${r.headers()['access-control-allow-origin']}`)));
        const page = await openSessionPage(browser, h.server.url, sid, failures);
        const audio = '#playback figure[data-player="uid 111"] audio';
        await page.waitForSelector(audio);
        await page.evaluate((sel) => (document.querySelector(sel) as HTMLAudioElement).play(), audio);
        await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLAudioElement).currentTime > 1, audio);
        assert.ok(fromBucket.length > 0 && fromBucket.every((r) => r === `200 ${h.server.url}`), JSON.stringify(fromBucket));
        assert.deepEqual(failures, []);
      } finally {
        await browser.close();
      }
    } finally {
      await h.close();
    }

    // 2. The bucket is missing: error event 1 (module 1, errorCode 32) without secrets; files are kept, not lost.
    const h2 = await startHarness({ storage: { routeAllToLocal: false, endpoints: { '1': missing.url } } });
    try {
      const cname = 'ind-s3-missing';
      await h2.publish({ cname, uid: 112, color: 'blue', toneHz: 880 });
      const { resourceId, sid } = await h2.startRecording(cname, '9101', request(cname));
      const ev = await waitUntil(() => h2.events.find((e) => e.payload.sid === sid && e.eventType === 1 && e.payload.details.module === 1), { timeoutMs: 60_000, intervalMs: 200, what: 'uploader error event' });
      assert.equal(ev.payload.details.errorCode, 32);
      assert.ok(ev.signed);
      assert.ok(!JSON.stringify(ev).includes('S3RVER'), 'no storage key in the event');
      // The file went to the backup spool (warnCode 32) and is re-uploaded from it (warnCode 31), once per file.
      const warned = (code: number) => h2.events.filter((e) => e.payload.sid === sid && e.eventType === 2 && e.payload.details.warnCode === code);
      await waitUntil(() => warned(31).length > 0 && warned(32).length > 0, { timeoutMs: 60_000, intervalMs: 200, what: 'uploader warnings 31 and 32' });
      const reUpload = warned(31)[0]!;
      assert.equal(reUpload.payload.details.module, 1);
      assert.match(String(reUpload.payload.details.warnMsg), /re-uploading in \d+ s \(attempt 1 failed/);
      const files31 = warned(31).map((e) => String(e.payload.details.warnMsg).split(':')[0]);
      assert.equal(new Set(files31).size, files31.length, 'one warnCode 31 per file');
      const stop = await h2.api('POST', h2.path(resourceId, sid, 'stop'), { cname, uid: '9101', clientRequest: { async_stop: true } });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      assert.equal(missing.writes.filter((k) => k.includes(sid)).length, 0);
    } finally {
      await h2.close();
    }
  } finally {
    await s3.close();
    await missing.close();
  }
});
