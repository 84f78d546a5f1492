import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FFMPEG_BIN, FFPROBE_BIN, parsePlaylist } from '../../media/index.ts';
import { tonePower } from '../../media/mix/testing/tones.ts';
import { runChild } from '../../process/index.ts';
import { rtcToken, startHarness, storageConfig, type Harness } from '../individual/testing/harness.ts';
import { bucketKeys, isColour, sleep } from '../individual/testing/media-checks.ts';
import { SAMPLE_FPS, sampled, sampleRange } from './testing/frames.ts';
import { waitUntil } from '../../testing/wait.ts';
import type { SpeakersDocument } from '../../media/speech/index.ts';
import { assertTimelineFollowsTurns } from '../common/testing/speakers.ts';
import { launchTestChromium } from '../../testing/chromium.ts';
import { openSessionPage } from '../../testing/console-page.ts';

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const GREEN = [0, 255, 0];
const BLACK = [0, 0, 0];
const YELLOW = [255, 255, 0];
const W = 640;
const H = 360;

interface StreamInfo {
  codec_name: string;
  codec_type?: string;
  width?: number;
  height?: number;
  r_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
}

async function streams(file: string): Promise<StreamInfo[]> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], { timeoutMs: 60_000 });
  return (JSON.parse(r.stdout.toString('utf8')) as { streams: StreamInfo[] }).streams;
}

async function duration(file: string): Promise<number> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { timeoutMs: 60_000 });
  return Number(r.stdout.toString('utf8').trim());
}

async function monoPcm(file: string): Promise<Int16Array> {
  const r = await runChild(FFMPEG_BIN, ['-v', 'error', '-i', file, '-map', '0:a', '-f', 's16le', '-ac', '1', '-ar', '48000', 'pipe:1'], { timeoutMs: 60_000 });
  return new Int16Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.length >> 1);
}

const serverResponse = (b: Record<string, unknown>) => b.serverResponse as Record<string, unknown>;

async function queryUntilFile(h: Harness, rid: string, sid: string): Promise<Record<string, unknown>> {
  return waitUntil(async () => {
      const q = await h.api('GET', h.path(rid, sid, 'query'));
      const sr = q.status === 200 ? serverResponse(q.body) : undefined;
      return sr && sr.status === 5 && sr.fileList !== '' && (!Array.isArray(sr.fileList) || sr.fileList.length > 0) ? sr : undefined;
    }, { timeoutMs: 40_000, intervalMs: 200, what: 'status 5 with a file' });
}

test('mix: two publishers in best fit, updateLayout to custom mid-run, defaults without recordingConfig, audio only, 404 after stop', async () => {
  const h = await startHarness({ mode: 'mix' });
  // A loopback image server for a background image.
  const imageDir = mkdtempSync(join(tmpdir(), 'mix-bg-'));
  const png = join(imageDir, 'yellow.png');
  await runChild(FFMPEG_BIN, ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=yellow:s=360x640', '-frames:v', '1', png]);
  const images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(readFileSync(png)));
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  const imageUrl = `http://127.0.0.1:${(images.address() as { port: number }).port}/yellow.png`;
  try {
    const cname = 'mix-main';
    const small = { width: 320, height: 180 };
    await h.publish({ cname, uid: 101, color: 'red', toneHz: 440, codec: 'vp8', ...small });
    await h.publish({ cname, uid: 102, color: 'blue', toneHz: 1000, codec: 'h264', ...small });
    const other = 'mix-defaults';
    await h.publish({ cname: other, uid: 201, color: 'red', toneHz: 440, codec: 'vp8', ...small });

    // The docs' composite body: everyone, audioProfile, a 640×360@15 canvas in best fit; an unreachable image.
    const main = await h.startRecording(cname, '9001', {
      token: rtcToken(cname, 9001, 2),
      storageConfig: storageConfig(),
      recordingConfig: {
        channelType: 0,
        streamTypes: 2,
        audioProfile: 1,
        videoStreamType: 0,
        maxIdleTime: 120,
        subscribeVideoUids: ['#allstream#'],
        subscribeAudioUids: ['#allstream#'],
        transcodingConfig: { width: W, height: H, fps: 15, bitrate: 500, mixedVideoLayout: 1, backgroundColor: '#00FF00', backgroundImage: 'http://127.0.0.1:9/none.png' },
      },
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    });
    // No recordingConfig: a 360×640 floating layout, HLS only.
    const defaults = await h.startRecording(other, '9002', { token: rtcToken(other, 9002, 2), storageConfig: storageConfig() });
    // streamTypes 0: an audio-only composite.
    const audioOnly = await h.startRecording(other, '9003', {
      token: rtcToken(other, 9003, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, streamTypes: 0 },
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    });
    const t0 = Date.now();

    await sleep(12_000 - (Date.now() - t0));
    // Custom layout: 102 top left, 101 top right; the colour is omitted, so the rest of the canvas turns black.
    const region = { y_axis: 0, width: 0.5, height: 0.5 };
    const ul = await h.api('POST', h.path(main.resourceId, main.sid, 'updateLayout'), {
      cname,
      uid: '9001',
      clientRequest: { mixedVideoLayout: 3, layoutConfig: [{ uid: '102', x_axis: 0, ...region }, { uid: '101', x_axis: 0.5, ...region }] },
    });
    assert.equal(ul.status, 200, JSON.stringify(ul.body));
    const tLayout = (Date.now() - t0) / 1000;
    // The defaults session: its lone user in the top half only, the canvas image below.
    const ulD = await h.api('POST', h.path(defaults.resourceId, defaults.sid, 'updateLayout'), {
      cname: other,
      uid: '9002',
      clientRequest: { mixedVideoLayout: 3, backgroundImage: imageUrl, layoutConfig: [{ x_axis: 0, y_axis: 0, width: 1, height: 0.5 }] },
    });
    assert.equal(ulD.status, 200, JSON.stringify(ulD.body));

    const q = await queryUntilFile(h, main.resourceId, main.sid);
    assert.equal(q.fileListMode, 'json');
    const qList = q.fileList as { fileName: string; uid: string; mixedAllUser: boolean; trackType: string }[];
    assert.deepEqual(
      qList.map((f) => [f.fileName, f.uid, f.mixedAllUser, f.trackType]),
      [[`rec/ind/${main.sid}_${cname}.m3u8`, '0', true, 'audio_and_video']],
    );
    const qd = await queryUntilFile(h, defaults.resourceId, defaults.sid);
    assert.equal(qd.fileListMode, 'string');
    assert.equal(qd.fileList, `rec/ind/${defaults.sid}_${other}.m3u8`);

    await sleep(Math.max(0, 24_000 - (Date.now() - t0)));
    const tStop = Date.now();
    const stop = await h.api('POST', h.path(main.resourceId, main.sid, 'stop'), { cname, uid: '9001', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const sr = serverResponse(stop.body);
    assert.equal(sr.uploadingStatus, 'uploaded');
    assert.equal(sr.fileListMode, 'json');
    const names = (sr.fileList as { fileName: string }[]).map((f) => f.fileName);
    assert.deepEqual(names, [`rec/ind/${main.sid}_${cname}.m3u8`, `rec/ind/${main.sid}_${cname}_0.mp4`]);
    const stopD = await h.api('POST', h.path(defaults.resourceId, defaults.sid, 'stop'), { cname: other, uid: '9002', clientRequest: {} });
    assert.equal(stopD.status, 200, JSON.stringify(stopD.body));
    assert.equal(serverResponse(stopD.body).fileListMode, 'string');
    const stopA = await h.api('POST', h.path(audioOnly.resourceId, audioOnly.sid, 'stop'), { cname: other, uid: '9003', clientRequest: {} });
    assert.equal(stopA.status, 200, JSON.stringify(stopA.body));
    const aList = serverResponse(stopA.body).fileList as { fileName: string; trackType: string }[];
    assert.deepEqual(aList.map((f) => f.trackType), ['audio', 'audio']);
    for (const f of aList) assert.deepEqual((await streams(join(h.bucketDir, f.fileName))).map((x) => x.codec_name), ['aac'], `${f.fileName} is audio only`);

    // updateLayout once the session is over: 404 failed to find worker.
    const late = await h.api('POST', h.path(defaults.resourceId, defaults.sid, 'updateLayout'), { cname: other, uid: '9002', clientRequest: { mixedVideoLayout: 1 } });
    assert.equal(late.status, 404, JSON.stringify(late.body));
    assert.equal(late.body.reason, 'failed to find worker');

    // The bucket: playlist, TS slices named <sid>_<cname>_<utc>.ts, one MP4.
    const keys = bucketKeys(h.bucketDir).filter((k) => k.includes(main.sid));
    const m3u8 = join(h.bucketDir, `rec/ind/${main.sid}_${cname}.m3u8`);
    const text = readFileSync(m3u8, 'utf8');
    const pl = parsePlaylist(text, 'video');
    assert.ok(pl.ended, 'the playlist is ended');
    assert.ok(!text.includes('#EXT-X-DISCONTINUITY'), 'no discontinuity across updateLayout');
    const tsKeys = keys.filter((k) => k.endsWith('.ts')).map((k) => k.split('/').pop()!);
    assert.deepEqual(pl.entries.map((e) => e.uri).sort(), tsKeys.sort(), 'the playlist names every slice in the bucket');
    for (const k of tsKeys) assert.match(k, new RegExp(`^${main.sid}_${cname}_\\d{17}\\.ts$`));
    assert.ok(tsKeys.length >= 2, `${tsKeys.length} slices`);
    const total = pl.entries.reduce((s, e) => s + e.durationSec, 0);
    // Nothing lost between the first slice and the stop request (the recording runs on until the stop takes effect).
    const span = (tStop - pl.entries[0]!.startMs) / 1000;
    assert.ok(total >= span - 1.5 && total <= span + 5, `${total} s recorded over ${span} s`);

    const info = await streams(m3u8);
    const v = info.find((s) => s.codec_name === 'h264')!;
    const a = info.find((s) => s.codec_name === 'aac')!;
    assert.deepEqual([v.width, v.height, v.r_frame_rate], [W, H, '15/1']);
    assert.deepEqual([Number(a.sample_rate), a.channels], [48_000, 1], 'audioProfile 1: 48 kHz mono');

    // Best fit for two: 101 (first) on the left half, 102 on the right; then the custom layout.
    // The layout was changed tLayout s after the starts, so no later than tLayout s into the output. Before it (once
    // both users' video is in, which takes longer on a loaded machine): best fit, 101 (first) on the left half, 102
    // on the right. From half a second after it: the custom layout in every sample.
    const out = await sampled(m3u8);
    const bestFit = sampleRange(0, tLayout - 0.5).filter((n) => isColour(out.px(n, 0.25, 0.5), RED) && isColour(out.px(n, 0.75, 0.5), BLUE));
    const seen = sampleRange(0, tLayout + 1).map((n) => `${n}:${out.px(n, 0.25, 0.5).join('/')}|${out.px(n, 0.75, 0.5).join('/')}`);
    assert.ok(bestFit.length >= SAMPLE_FPS, `best fit, red left and blue right, in ${bestFit.length} samples before the change: ${seen.join(' ')}`);
    const custom = sampleRange(tLayout + 0.5, total - 0.5);
    assert.ok(custom.length >= 8 * SAMPLE_FPS, `${custom.length} samples after the change`);
    for (const n of custom) {
      const at = (fx: number, fy: number) => out.px(n, fx, fy);
      assert.ok(isColour(at(0.25, 0.25), BLUE), `sample ${n}: custom top left is 102 (blue): ${at(0.25, 0.25)}`);
      assert.ok(isColour(at(0.75, 0.25), RED), `sample ${n}: custom top right is 101 (red): ${at(0.75, 0.25)}`);
      assert.ok(isColour(at(0.5, 0.75), BLACK) && !isColour(at(0.5, 0.75), GREEN), `sample ${n}: the omitted colour reverts to black: ${at(0.5, 0.75)}`);
    }

    // Both tones are in the mix, a third frequency is not.
    const pcm = await monoPcm(m3u8);
    const from = 3 * 48_000;
    const to = Math.min(pcm.length, 18 * 48_000);
    const p440 = tonePower(pcm, 1, 440, from, to);
    const p1000 = tonePower(pcm, 1, 1000, from, to);
    const p700 = tonePower(pcm, 1, 700, from, to);
    assert.ok(p440 > 50 * p700 && p1000 > 50 * p700, `tones 440 ${p440}, 1000 ${p1000}, 700 ${p700}`);

    const mp4 = join(h.bucketDir, `rec/ind/${main.sid}_${cname}_0.mp4`);
    assert.deepEqual((await streams(mp4)).map((s) => s.codec_name).sort(), ['aac', 'h264']);
    assert.ok(Math.abs((await duration(mp4)) - total) < 1.5, 'the MP4 holds the whole recording');

    const dm3u8 = join(h.bucketDir, `rec/ind/${defaults.sid}_${other}.m3u8`);
    const dv = (await streams(dm3u8)).find((s) => s.codec_name === 'h264')!;
    assert.deepEqual([dv.width, dv.height, dv.r_frame_rate], [360, 640, '15/1'], 'default canvas 360×640 at 15 fps');
    const dOut = await sampled(dm3u8, true);
    assert.ok(
      sampleRange(0, tLayout - 0.5).some((n) => isColour(dOut.px(n, 0.5, 0.75), RED) && isColour(dOut.px(n, 0.5, 0.25), RED)),
      'floating: the only user fills the canvas',
    );
    // After its updateLayout: the user in the top half, and the image below once fetched and decoded.
    const dCustom = sampleRange(tLayout + 0.5, dOut.count / SAMPLE_FPS - 0.5);
    assert.ok(dCustom.every((n) => isColour(dOut.px(n, 0.5, 0.25), RED)), 'custom: the user in the top half');
    const shown = dCustom.findIndex((n) => isColour(dOut.px(n, 0.5, 0.75), YELLOW));
    assert.ok(shown >= 0, 'the background image from the loopback server is shown below');
    assert.ok(dCustom.slice(shown).every((n) => isColour(dOut.px(n, 0.5, 0.75), YELLOW)), 'and stays');

    // Events of the main session.
    await waitUntil(() => h.events.some((e) => e.payload.sid === main.sid && e.eventType === 31), { timeoutMs: 20_000, intervalMs: 200, what: 'uploaded event' });
    const mine = h.events.filter((e) => e.payload.sid === main.sid).sort((x, y) => x.payload.sequence - y.payload.sequence);
    const types = mine.map((e) => e.eventType);
    for (const t of [30, 40, 42, 4, 43, 44, 41, 31, 2]) assert.ok(types.includes(t), `event ${t} in ${types.join(',')}`);
    const slice = mine.find((e) => e.eventType === 42)!.payload.details;
    assert.deepEqual([slice.mixedAllUser, slice.trackType], [true, 'audio_and_video']);
    const warn = mine.find((e) => e.eventType === 2 && e.payload.details.warnCode === 1106);
    assert.ok(warn, 'the unreachable background image is a warning');
    assert.ok(types.indexOf(40) < types.indexOf(42) && types.indexOf(42) < types.indexOf(41) && types.indexOf(41) < types.indexOf(31));
  } finally {
    await h.close();
    await new Promise((r) => images.close(r));
    rmSync(imageDir, { recursive: true, force: true });
  }
});

test('mix active speaker (mixedVideoLayout 100): two publishers taking turns take the main region in turn; an odd canvas is recorded one pixel smaller; the speaker timeline has each turn', async () => {
  const h = await startHarness({ mode: 'mix' });
  try {
    const cname = 'mix-speaker';
    const small = { width: 160, height: 90 };
    // Each tone sounds for half of every 8 s, the two in opposite halves.
    const a = await h.publish({ cname, uid: 401, color: 'red', toneHz: 440, ...small, toneTurns: { periodSec: 8, half: 'first' } });
    const b = await h.publish({ cname, uid: 402, color: 'blue', toneHz: 1000, ...small, toneTurns: { periodSec: 8, half: 'second' } });
    const { resourceId, sid } = await h.startRecording(cname, '9005', {
      token: rtcToken(cname, 9005, 2),
      storageConfig: storageConfig(),
      // 321×181: odd sides, which the API accepts, are recorded at the even size below (320×180).
      recordingConfig: { channelType: 0, speakerTimeline: true, transcodingConfig: { width: 321, height: 181, fps: 15, bitrate: 300, mixedVideoLayout: 100 } },
    });
    await sleep(22_000);
    const stopAt = Date.now();
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9005', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    // The main region's centre (left 4/5) and the strip's first small region.
    const playlist = join(h.bucketDir, `rec/ind/${sid}_${cname}.m3u8`);
    const video = (await streams(playlist)).find((s) => s.codec_type === 'video');
    assert.deepEqual([video?.width, video?.height], [320, 180], 'the odd canvas is encoded at the even size below');
    const out = await sampled(playlist);
    const px = out.px;
    const colourOf = (rgb: number[]) => (isColour(rgb, RED) ? 'red' : isColour(rgb, BLUE) ? 'blue' : 'other');
    const frames = out.count;
    // Counted from the first frame that shows both users' video (how soon depends on the machine's load).
    let first = 0;
    while (first < frames && (colourOf(px(first, 0.4, 0.5)) === 'other' || colourOf(px(first, 0.9, 0.125)) === 'other')) first++;
    assert.ok(first < 10 * SAMPLE_FPS, `both users drawn within 10 s (first at sample ${first})`);
    const mains: string[] = [];
    for (let n = first; n < frames; n++) {
      const main = colourOf(px(n, 0.4, 0.5));
      const strip = colourOf(px(n, 0.9, 0.125));
      mains.push(main);
      assert.ok(main !== 'other' && strip !== 'other' && main !== strip, `frame ${n}: main ${main}, strip ${strip}`);
    }
    console.log(`main region from ${first / SAMPLE_FPS} s, ${SAMPLE_FPS} samples a second: ${mains.join(' ')}`);
    const count = (c: string) => mains.filter((m) => m === c).length;
    assert.ok(count('red') >= 2 * SAMPLE_FPS && count('blue') >= 2 * SAMPLE_FPS, `both speakers had the main region: ${mains.join(' ')}`);
    // No flicker: the main user changes at most once per 1.5 s (less one sample for the sampling grid).
    const switches = mains.flatMap((m, i) => (i > 0 && m !== mains[i - 1] ? [i] : []));
    assert.ok(switches.length >= 1, `the main region changed hands: ${mains.join(' ')}`);
    switches.slice(1).forEach((s, i) => assert.ok(s - switches[i]! >= 1.5 * SAMPLE_FPS - 1, `switches at samples ${switches.join(', ')}`));

    // The speaker timeline (recordingConfig.speakerTimeline): the turns from when both users are heard to the stop.
    const doc = JSON.parse(readFileSync(join(h.bucketDir, `rec/ind/${sid}_${cname}_speakers.json`), 'utf8')) as SpeakersDocument;
    assert.equal(doc.final, true);
    assert.deepEqual(doc.playlists, [{ fileName: `rec/ind/${sid}_${cname}.m3u8` }]);
    const heard = Math.max(...['401', '402'].map((uid) => Math.min(...doc.speakers.filter((s) => s.uid === uid).map((s) => s.startUtcMs))));
    const errors = assertTimelineFollowsTurns(
      doc,
      [
        { uid: '401', publisher: a, periodMs: 8000, half: 'first' },
        { uid: '402', publisher: b, periodMs: 8000, half: 'second' },
      ],
      { startMs: heard - 300, endMs: stopAt - 1000 },
      { toleranceMs: 300 },
    );
    console.log(`speaker timeline: ${doc.speakers.length} intervals; edges against the turns (ms): ${errors.map((e) => e.toFixed(0)).join(' ')}`);
    for (const s of doc.speakers) assert.ok(s.media.length === 1 && s.media[0]!.endSec > s.media[0]!.startSec, JSON.stringify(s));
    const vtt = readFileSync(join(h.bucketDir, `rec/ind/${sid}_${cname}_speakers.vtt`), 'utf8');
    assert.equal(vtt.match(/ --> /g)?.length, doc.speakers.length);
    // The console plays the mix with the timeline's cues as captions, and draws a lane per speaker under it.
    const browser = await launchTestChromium();
    try {
      const failures: string[] = [];
      const page = await openSessionPage(browser, h.server.url, sid, failures);
      await page.waitForSelector('#speakers[data-final="true"] .lane[data-uid="402"] .speech');
      const video = '#playback figure video[data-player="hls"]';
      await page.waitForFunction(
        ([sel, n]) => (document.querySelector(sel as string) as HTMLVideoElement | null)?.textTracks[0]?.cues?.length === n,
        [video, doc.speakers.length] as const,
      );
      assert.deepEqual(failures, []);
    } finally {
      await browser.close();
    }
  } finally {
    await h.close();
  }
});
