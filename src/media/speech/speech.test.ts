import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  levelFrames,
  mediaSecondsAt,
  nextVoiceState,
  SILENT,
  SPEECH_SAMPLE_RATE,
  SpeechAudio,
  SpeechDetector,
  SPEECH_RULES,
  speakersDocument,
  speakersVtt,
  toSpeechRate,
  vttTime,
  wavFile,
  type SpeechInterval,
} from './index.ts';

const LOUD = -20;
const QUIET = -70;

/** 20 ms frames of `uid` from `fromMs` to `toMs` at `level`. */
function feed(d: SpeechDetector, uid: string, fromMs: number, toMs: number, level: number): void {
  for (let t = fromMs; t < toMs; t += 20) d.frame(uid, { atMs: t, durationMs: 20, levelDbfs: level });
}

test('speech: an interval runs from the first voiced frame to the last, through pauses shorter than the hangover', () => {
  const d = new SpeechDetector();
  feed(d, 'a', 0, 1000, QUIET);
  feed(d, 'a', 1000, 3000, LOUD);
  feed(d, 'a', 3000, 3500, QUIET); // a breath: 500 ms < 800 ms
  feed(d, 'a', 3500, 5000, LOUD);
  feed(d, 'a', 5000, 7000, QUIET);
  assert.deepEqual(d.intervals(), [{ uid: 'a', startMs: 1000, endMs: 5000, levelDbfs: -20 }]);
  assert.equal(d.takeChanged(), true);
  assert.equal(d.takeChanged(), false);
});

test('speech: a pause of the hangover splits; a click (under the onset) and a cough (under the minimum) are not speech', () => {
  const d = new SpeechDetector();
  feed(d, 'a', 0, 1000, LOUD);
  feed(d, 'a', 1000, 1000 + SPEECH_RULES.hangoverMs, QUIET);
  feed(d, 'a', 1800, 2400, LOUD);
  feed(d, 'a', 2400, 4000, QUIET);
  feed(d, 'a', 4000, 4040, LOUD); // 40 ms: below the 60 ms onset
  feed(d, 'a', 4040, 5000, QUIET);
  feed(d, 'a', 5000, 5200, LOUD); // 200 ms: a cough
  feed(d, 'a', 5200, 7000, QUIET);
  assert.deepEqual(
    d.intervals().map((i) => [i.startMs, i.endMs]),
    [
      [0, 1000],
      [1800, 2400],
    ],
  );
});

test('speech: users are apart; the caller’s clock ends an interval when frames stop; end() closes one in progress', () => {
  const d = new SpeechDetector();
  feed(d, 'a', 0, 2000, LOUD);
  feed(d, 'b', 1500, 4000, -30);
  // a's sender stopped sending (DTX, gone): its interval is listed while in progress, and ends with time.
  assert.deepEqual(d.intervals().map((i) => [i.uid, i.startMs, i.endMs]), [
    ['a', 0, 2000],
    ['b', 1500, 4000],
  ]);
  d.advance(2900);
  d.end('b');
  const all = d.intervals();
  assert.deepEqual(all.map((i) => [i.uid, i.startMs, i.endMs, i.levelDbfs]), [
    ['a', 0, 2000, -20],
    ['b', 1500, 4000, -30],
  ]);
  // A frame older than the last voice changes nothing.
  const s = nextVoiceState({ kind: 'speaking', startMs: 0, voicedEndMs: 1000, voicedMs: 1000, powerSum: 1, frames: 1 }, {
    kind: 'frame',
    frame: { atMs: 500, durationMs: 20, levelDbfs: LOUD },
  });
  assert.equal(s.state.kind === 'speaking' && s.state.voicedEndMs, 1000);
  assert.deepEqual(nextVoiceState(SILENT, { kind: 'time', nowMs: 5 }), { state: SILENT });
});

test('level frames: 20 ms frames dated from the run’s start; a sine at full scale is −3 dBFS, silence is the floor', () => {
  const rate = 48_000;
  const samples = new Int16Array(rate / 10 * 2); // 100 ms of stereo
  for (let i = 0; i < samples.length / 2; i++) samples[2 * i] = samples[2 * i + 1] = Math.round(32767 * Math.sin((2 * Math.PI * 440 * i) / rate));
  const frames = levelFrames(1000, { samples, channels: 2 }, rate);
  assert.deepEqual(frames.map((f) => [f.atMs, f.durationMs]), [
    [1000, 20],
    [1020, 20],
    [1040, 20],
    [1060, 20],
    [1080, 20],
  ]);
  for (const f of frames) assert.ok(Math.abs(f.levelDbfs + 3) < 0.2, String(f.levelDbfs));
  assert.equal(levelFrames(0, { samples: new Int16Array(1000), channels: 1 }, rate)[0]!.levelDbfs, -127);
});

test('media time: slices play back to back, a held gap is skipped, the slice in progress goes on', () => {
  const slices = [
    { startMs: 10_000, durationSec: 4 },
    { startMs: 14_000, durationSec: 4 },
    // held from 18 s to 30 s
    { startMs: 30_000, durationSec: 2 },
  ];
  assert.equal(mediaSecondsAt(9_000, slices), 0);
  assert.equal(mediaSecondsAt(11_500, slices), 1.5);
  assert.equal(mediaSecondsAt(16_000, slices), 6);
  assert.equal(mediaSecondsAt(20_000, slices), 8);
  assert.equal(mediaSecondsAt(31_000, slices), 9);
  assert.equal(mediaSecondsAt(33_500, slices), 11.5);
  assert.equal(mediaSecondsAt(1, []), undefined);
});

test('speaker files: each interval in UTC and in each playlist with its sound; WebVTT cues with a voice span per uid', () => {
  const intervals: SpeechInterval[] = [
    { uid: '2', startMs: 15_000, endMs: 17_250, levelDbfs: -18.5 },
    { uid: '1', startMs: 11_000, endMs: 13_000, levelDbfs: -20 },
  ];
  const doc = speakersDocument({
    sid: 's',
    cname: 'c',
    final: true,
    intervals,
    playlists: [
      { fileName: 'p/s_c__uid_s_1__uid_e_audio.m3u8', uid: '1', slices: [{ startMs: 10_000, durationSec: 10 }] },
      { fileName: 'p/s_c__uid_s_2__uid_e_audio.m3u8', uid: '2', slices: [{ startMs: 14_000, durationSec: 10 }] },
      { fileName: 'p/s_c__uid_s_3__uid_e_audio.m3u8', uid: '3', slices: [] },
    ],
  });
  assert.deepEqual(doc.playlists, [
    { fileName: 'p/s_c__uid_s_1__uid_e_audio.m3u8', uid: '1' },
    { fileName: 'p/s_c__uid_s_2__uid_e_audio.m3u8', uid: '2' },
  ]);
  assert.deepEqual(doc.speakers[0], {
    uid: '2',
    startUtcMs: 15_000,
    endUtcMs: 17_250,
    levelDbfs: -18.5,
    media: [{ fileName: 'p/s_c__uid_s_2__uid_e_audio.m3u8', startSec: 1, endSec: 3.25 }],
  });
  const mix = speakersDocument({ sid: 's', cname: 'c', final: false, intervals, playlists: [{ fileName: 'p/s_c.m3u8', uid: undefined, slices: [{ startMs: 10_000, durationSec: 10 }] }] });
  assert.deepEqual(mix.speakers.map((s) => s.media.map((m) => [m.startSec, m.endSec])), [[[5, 7.25]], [[1, 3]]]);
  assert.equal(vttTime(3725.5), '01:02:05.500');
  assert.equal(
    speakersVtt(intervals, (ms) => (ms - 10_000) / 1000),
    'WEBVTT\n\n1\n00:00:01.000 --> 00:00:03.000\n<v 1>uid 1</v>\n\n2\n00:00:05.000 --> 00:00:07.250\n<v 2>uid 2</v>\n',
  );
  assert.match(speakersVtt([{ uid: 'a<b', startMs: 0, endMs: 1000, levelDbfs: -1 }], (ms) => ms / 1000), /<v a&lt;b>uid a&lt;b<\/v>/);
});

test('speech audio: 48 kHz stereo to 16 kHz mono; held from a second before the voice; cut by time; a WAV header', () => {
  const stereo = new Int16Array(48 * 2 * 3); // 3 ms
  for (let i = 0; i < stereo.length; i += 2) [stereo[i], stereo[i + 1]] = [300, 100];
  const mono = toSpeechRate({ samples: stereo, channels: 2 }, 48_000);
  assert.equal(mono.length, 48);
  assert.ok(mono.every((v) => v === 200));
  assert.deepEqual([...toSpeechRate({ samples: new Float32Array([0.5, 0.5, 0.5]), channels: 1 }, 48_000)], [16384]);

  const a = new SpeechAudio();
  const second = (v: number) => new Int16Array(SPEECH_SAMPLE_RATE).fill(v);
  for (let s = 0; s < 5; s++) a.push('u', s * 1000, second(s), undefined);
  // Silent: only the last second is held.
  assert.deepEqual([...new Set(a.cut('u', 0, 5000))], [4]);
  for (let s = 5; s < 9; s++) a.push('u', s * 1000, second(s), 6000);
  // A voice from 6 s: held from 5 s on.
  assert.deepEqual([...new Set(a.cut('u', 0, 9000))], [5, 6, 7, 8]);
  const cut = a.cut('u', 6500, 7250);
  assert.equal(cut.length, 0.75 * SPEECH_SAMPLE_RATE);
  const wav = wavFile(cut, SPEECH_SAMPLE_RATE);
  assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
  assert.equal(wav.readUInt32LE(24), 16_000);
  assert.equal(wav.readUInt32LE(40), cut.length * 2);
  assert.equal(wav.readInt16LE(44), 6);
  // A run dated before the last one's end keeps only what comes after it.
  a.push('u', 8500, second(9), 6000);
  assert.equal(a.cut('u', 8000, 10_000).length, 1.5 * SPEECH_SAMPLE_RATE);
  assert.deepEqual([...new Set(a.cut('u', 9000, 9500))], [9]);
  a.forget('u');
  assert.equal(a.cut('u', 0, 9000).length, 0);
});

test('speaker files with transcripts: the JSON carries the text, the cue shows it escaped and on its lines', () => {
  const i: SpeechInterval = { uid: '7', startMs: 1000, endMs: 2000, levelDbfs: -10 };
  const text = () => 'hello <world>\n\nsecond --> line';
  assert.equal(speakersDocument({ sid: 's', cname: 'c', final: true, intervals: [i], playlists: [], textOf: text }).speakers[0]!.text, text());
  assert.equal(speakersVtt([i], (ms) => ms / 1000, text), 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v 7>hello &lt;world&gt;\nsecond -&gt; line</v>\n');
});
