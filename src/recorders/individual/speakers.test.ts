import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SpeakersDocument } from '../../media/speech/index.ts';
import { assertTimelineFollowsTurns } from '../common/testing/speakers.ts';
import { APP, rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { sleep } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../notify/index.ts';
import { launchTestChromium } from '../../testing/chromium.ts';
import { openSessionPage } from '../../testing/console-page.ts';
import { dominantFrequency } from '../../media/capture/testing/media-checks.ts';

const PERIOD_MS = 8000;

const SECRET = 'stt-secret';

/** A loopback speech-to-text service: keeps each POST and answers a text naming its uid and tone. */
async function speechToText() {
  const posts: { uid: string; startMs: number; endMs: number; wav: Buffer; signed: boolean }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const wav = Buffer.concat(chunks);
      const h = (k: string) => String(req.headers[k]);
      const signed = verifySignature(wav, SECRET, { 'agora-signature': h('agora-signature'), 'agora-signature-v2': h('agora-signature-v2') });
      posts.push({ uid: h('x-reeltime-uid'), startMs: Number(h('x-reeltime-start-utc-ms')), endMs: Number(h('x-reeltime-end-utc-ms')), wav, signed });
      const tone = dominantFrequency(samplesOf(wav), 100, 2000, 16_000);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: `uid ${h('x-reeltime-uid')} hums ${Math.round(tone / 10) * 10} Hz` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/stt`, posts, close: () => new Promise((r) => server.close(r)) };
}

/** A 16-bit mono WAV's samples as floats. */
function samplesOf(wav: Buffer): Float32Array {
  const n = (wav.length - 44) >> 1;
  return Float32Array.from({ length: n }, (_, i) => wav.readInt16LE(44 + 2 * i) / 32768);
}

test('individual speaker timeline: two publishers taking turns and a silent one; the files grow during the session, each turn is one interval within 300 ms of its edges; each interval is transcribed once', async () => {
  const h = await startHarness({ recording: { individualSliceSeconds: 4 } });
  const stt = await speechToText();
  try {
    const cname = 'ind-speakers';
    const small = { width: 160, height: 90 };
    // H.264: the console plays each user's playlist through hls.js, which seeks (below).
    const a = await h.publish({ cname, uid: 501, color: 'red', toneHz: 440, codec: 'h264', ...small, toneTurns: { periodSec: PERIOD_MS / 1000, half: 'first' } });
    const b = await h.publish({ cname, uid: 502, color: 'blue', toneHz: 1000, codec: 'h264', ...small, toneTurns: { periodSec: PERIOD_MS / 1000, half: 'second' } });
    await h.publish({ cname, uid: 503, color: 'green', toneHz: 0, ...small });
    const { resourceId, sid } = await h.startRecording(cname, '9001', {
      token: rtcToken(cname, 9001, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, speakerTimeline: true, transcription: { url: stt.url, secret: SECRET } },
    });
    const startedMs = Date.now();
    const jsonPath = join(h.bucketDir, `rec/ind/${sid}_${cname}_speakers.json`);
    const vttPath = join(h.bucketDir, `rec/ind/${sid}_${cname}_speakers.vtt`);
    // While it records: the file is there, not final, with an interval in it, and the query lists it.
    const live = await waitUntil(() => {
      if (!existsSync(jsonPath)) return undefined;
      const d = JSON.parse(readFileSync(jsonPath, 'utf8')) as SpeakersDocument;
      return d.speakers.length > 0 && d;
    }, { timeoutMs: 60_000, intervalMs: 200, what: 'a speaker interval in the bucket during the session' });
    assert.equal(live.final, false);
    // Reported when first written; the bucket may show them first (session 25, a loaded run): waited for.
    const listed = await waitUntil(async () => {
      const q = await h.api('GET', h.path(resourceId, sid, 'query'));
      const l = ((q.body.serverResponse as { fileList?: { fileName: string; isPlayable: boolean }[] }).fileList ?? []).filter((f) => f.fileName.includes('_speakers.'));
      return l.length > 0 && l;
    }, { timeoutMs: 30_000, intervalMs: 200, what: 'the speaker files in the query' });
    assert.deepEqual(listed.map((f) => [f.fileName, f.isPlayable]), [
      [`rec/ind/${sid}_${cname}_speakers.json`, false],
      [`rec/ind/${sid}_${cname}_speakers.vtt`, false],
    ]);
    await sleep(Math.max(0, 26_000 - (Date.now() - startedMs)));
    const stopAt = Date.now();
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9001', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));

    const doc = JSON.parse(readFileSync(jsonPath, 'utf8')) as SpeakersDocument;
    assert.equal(doc.final, true);
    assert.deepEqual(doc.playlists.map((p) => p.uid).sort(), ['501', '501', '502', '502', '503', '503']);
    // From when both turn takers' audio is recorded (their audio playlists' first slices) to the stop, less the last
    // batch the decoders may not have given out.
    const files = (stop.body.serverResponse as { fileList: { fileName: string; sliceStartTime: number }[] }).fileList;
    const audioStarts = files.filter((f) => /__uid_s_50[12]__uid_e_audio\.m3u8$/.test(f.fileName)).map((f) => (f.sliceStartTime < 1e12 ? f.sliceStartTime * 1000 : f.sliceStartTime));
    assert.equal(audioStarts.length, 2, JSON.stringify(files));
    const errors = assertTimelineFollowsTurns(
      doc,
      [
        { uid: '501', publisher: a, periodMs: PERIOD_MS, half: 'first' },
        { uid: '502', publisher: b, periodMs: PERIOD_MS, half: 'second' },
      ],
      // Less the decoders' start: a run alone here once heard a turn begin 1.3 s late, its first audio decoded late.
      { startMs: Math.max(...audioStarts) + 2000, endMs: stopAt - 1000 },
      { toleranceMs: 300, silent: ['503'] },
    );
    console.log(`${doc.speakers.length} intervals; edges against the turns (ms): ${errors.map((e) => e.toFixed(0)).join(' ')}`);
    // Each interval in its user's two playlists (audio and video), in order and inside them.
    for (const s of doc.speakers) {
      assert.deepEqual(s.media.map((m) => m.fileName.match(/__uid_e_(\w+)\.m3u8$/)?.[1]).sort(), ['audio', 'video'], JSON.stringify(s));
      for (const m of s.media) assert.ok(m.startSec >= 0 && m.endSec > m.startSec, JSON.stringify(s));
    }
    const vtt = readFileSync(vttPath, 'utf8');
    assert.ok(vtt.startsWith('WEBVTT\n'), vtt.slice(0, 40));
    assert.equal(vtt.match(/ --> /g)?.length, doc.speakers.length);
    assert.equal(vtt.match(/<v 501>/g)?.length, doc.speakers.filter((s) => s.uid === '501').length);

    // The transcription hook: every interval POSTed once, signed, with its own audio (its length, its speaker's
    // tone), and the text answered in the JSON and the cue. The secret is not in the sessions API.
    assert.deepEqual(
      stt.posts.map((p) => `${p.uid}/${p.startMs}`).sort(),
      doc.speakers.map((s) => `${s.uid}/${s.startUtcMs}`).sort(),
      'one POST per interval',
    );
    for (const p of stt.posts) {
      assert.ok(p.signed, 'signed like a webhook');
      const seconds = (p.wav.length - 44) / 2 / 16_000;
      assert.ok(Math.abs(seconds - (p.endMs - p.startMs) / 1000) < 0.3, `uid ${p.uid}: ${seconds} s of audio for ${p.endMs - p.startMs} ms`);
    }
    for (const s of doc.speakers) {
      const hz = s.uid === '501' ? 440 : 1000;
      assert.equal(s.text, `uid ${s.uid} hums ${hz} Hz`);
      assert.ok(vtt.includes(`<v ${s.uid}>uid ${s.uid} hums ${hz} Hz</v>`), vtt);
    }
    const detail = await h.api('GET', `/v1/apps/${APP}/cloud_recording/sessions/${sid}`);
    assert.equal(detail.status, 200);
    assert.ok(!JSON.stringify(detail.body).includes(SECRET), 'the transcription secret is not answered');

    // The console's session page: a lane per speaker under the players, a mark per interval; a click seeks that
    // user's player to the interval.
    const browser = await launchTestChromium();
    try {
      const failures: string[] = [];
      const page = await openSessionPage(browser, h.server.url, sid, failures);
      await page.waitForSelector('#speakers[data-final="true"] .lane[data-uid="502"] .speech');
      const lanes = await page.$$eval('#speakers .lane', (ls) => ls.map((l) => [l.getAttribute('data-uid'), l.querySelectorAll('.speech').length]));
      assert.deepEqual(lanes, ['501', '502'].map((uid) => [uid, doc.speakers.filter((s) => s.uid === uid).length]));
      const mark = '#speakers .lane[data-uid="502"] .speech';
      const startSec = Number(await page.getAttribute(mark, 'data-start'));
      const video = '#playback figure[data-player="uid 502"] video';
      await page.waitForFunction((sel) => ((document.querySelector(sel) as HTMLVideoElement | null)?.readyState ?? 0) >= 1, video);
      await page.click(mark);
      await page.waitForFunction(([sel, t]) => Math.abs((document.querySelector(sel as string) as HTMLVideoElement).currentTime - (t as number)) < 0.5, [video, startSec] as const);
      assert.deepEqual(failures, []);
    } finally {
      await browser.close();
    }
  } finally {
    await h.close();
    await stt.close();
  }
});
