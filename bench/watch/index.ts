/**
 * Watch while it records: how long after a publisher's frame the same frame is playable from the growing playlist in
 * the bucket, per mode (individual, mix, and web, whose frames are a page's as captured), with the service's 15 s
 * slices (`BENCH_SLICE_SECONDS` shortens them; `BENCH_MODES=web` picks modes).
 *
 * A frame is playable once its slice is uploaded and listed in the playlist, which is uploaded after it. The bench
 * polls the playlist in the local bucket every 50 ms and stamps each slice when it first appears there. A slice's
 * media starts at the UTC time in its name (its first packet's arrival at the recorder: on loopback, the
 * publisher's send time within a few ms) and lasts its `#EXTINF`, so:
 *   - the slice's last frame became playable `listed − (start + length)` after it was sent: what the recorder,
 *     the upload and the playlist add (the floor is 0: no frame is playable before its slice closes);
 *   - its first frame `listed − start` after it was sent: the slice length plus that.
 * The baseline is the slice length, measured in the same run (each slice's own `#EXTINF`).
 *
 *   node --import tsx bench/watch/index.ts   (BENCH_SECONDS=50, BENCH_SLICE_SECONDS=0: the service's 15 s)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePlaylist } from '../../src/media/m3u8.ts';
import { rtcToken, startHarness, storageConfig } from '../../src/recorders/individual/testing/harness.ts';
import { bucketKeys } from '../../src/recorders/individual/testing/media-checks.ts';
import { startPageServer } from '../../src/media/capture/testing/page-server.ts';
import { webClient, webService } from '../../src/recorders/web/testing/web-client.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 50);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 0);
const POLL_MS = 50;

interface Listed {
  readonly uri: string;
  readonly startMs: number;
  readonly lengthSec: number;
  readonly listedMs: number;
}

type Mode = 'individual' | 'mix' | 'web';

async function measure(mode: Mode): Promise<Listed[]> {
  const h = await startHarness({
    mode: mode === 'web' ? 'individual' : mode,
    recording: SLICE_SECONDS > 0 ? { individualSliceSeconds: SLICE_SECONDS, mixSliceSeconds: SLICE_SECONDS, webSliceSeconds: SLICE_SECONDS } : {},
  });
  // Web mode records a page (a red one with a tone, served on loopback): its frames are the page's as captured.
  const pages = mode === 'web' ? await startPageServer({ watch: { colour: '#ff0000', toneHz: 440 } }) : undefined;
  const web = webClient(h.api);
  try {
    const cname = `watch-${mode}`;
    let started: { resourceId: string; sid: string };
    if (pages) {
      started = await web.start(cname, '9001', { storageConfig: storageConfig(), recordingFileConfig: { avFileType: ['hls'] }, extensionServiceConfig: { extensionServices: [webService(`${pages.origin}/watch`)] } });
    } else {
      await h.publish({ cname, uid: 101, color: 'red', toneHz: 440, width: 640, height: 360 });
      started = await h.startRecording(cname, '9001', {
        token: rtcToken(cname, 9001, 2),
        storageConfig: storageConfig(),
        recordingConfig: { channelType: 0, ...(mode === 'individual' ? { subscribeUidGroup: 0 } : { transcodingConfig: { width: 640, height: 360, fps: 15, bitrate: 500, mixedVideoLayout: 1 } }) },
        recordingFileConfig: { avFileType: ['hls'] },
      });
    }
    const { resourceId, sid } = started;
    // The video playlist: individual's per-user one, mix's composite. The bucket is listed until it appears, then
    // only the playlist is read (the local bucket writes it whole: a temp file, then a rename).
    let playlist: string | undefined;
    const seen = new Map<string, Listed>();
    const until = Date.now() + SECONDS * 1000;
    while (Date.now() < until) {
      playlist ??= bucketKeys(h.bucketDir).find((k) => k.includes(sid) && k.endsWith('.m3u8') && (mode !== 'individual' || k.includes('__uid_e_video')));
      if (playlist !== undefined) {
        const now = Date.now();
        for (const e of parsePlaylist(readFileSync(join(h.bucketDir, playlist), 'utf8'), 'video').entries) {
          if (!seen.has(e.uri)) seen.set(e.uri, { uri: e.uri, startMs: e.startMs, lengthSec: e.durationSec, listedMs: now });
        }
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    await h.api('POST', (pages ? web : h).path(resourceId, sid, 'stop'), { cname, uid: '9001', clientRequest: {} });
    return [...seen.values()];
  } finally {
    await h.close();
    await pages?.close();
  }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const s = (ms: number) => (ms / 1000).toFixed(2);

console.log(`watch delay: ${SECONDS} s per mode, slices ${SLICE_SECONDS > 0 ? `${SLICE_SECONDS} s` : 'of the service (15 s)'}`);
console.log('mode        slices  slice length  last frame → playable (median, max)  first frame → playable (median, max)  first frame / slice length');
for (const mode of (process.env.BENCH_MODES ?? 'individual,mix,web').split(',') as Mode[]) {
  const listed = await measure(mode);
  if (listed.length === 0) {
    console.log(`${mode.padEnd(11)} no slice listed within ${SECONDS} s`);
    continue;
  }
  const length = listed.map((l) => l.lengthSec * 1000);
  const last = listed.map((l) => l.listedMs - (l.startMs + l.lengthSec * 1000));
  const first = listed.map((l) => l.listedMs - l.startMs);
  const ratio = median(first) / median(length);
  console.log(
    `${mode.padEnd(11)} ${String(listed.length).padStart(6)}  ${s(median(length)).padStart(10)} s  ${`${s(median(last))} s, ${s(Math.max(...last))} s`.padStart(34)}  ${`${s(median(first))} s, ${s(Math.max(...first))} s`.padStart(35)}  ${ratio.toFixed(2).padStart(25)}`,
  );
}
