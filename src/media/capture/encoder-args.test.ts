import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRtmpUrl } from '../push/index.ts';
import { encoderArgs, keyframeIntervalSec, teeSlave, type EncoderPlan } from './encoder-args.ts';
import { resolveCaptureOptions } from './options.ts';

const plan = (over: Partial<EncoderPlan> = {}): EncoderPlan => ({
  options: resolveCaptureOptions({ workDir: '/w', width: 1280, height: 720 }),
  display: ':7',
  audioStartMs: 1_700_000_000_345.5,
  originMs: 1_700_000_000_123,
  run: 2,
  ...over,
});

const after = (args: string[], flag: string): string | undefined => args[args.indexOf(flag) + 1];

test('keyframes at most 2 s apart and a whole fraction of the slice', () => {
  assert.equal(keyframeIntervalSec(15), 1.875);
  assert.equal(keyframeIntervalSec(3), 1.5);
  assert.equal(keyframeIntervalSec(4), 2);
  for (let s = 1; s <= 60; s++) {
    const k = keyframeIntervalSec(s);
    assert.ok(k <= 2 && Number.isInteger(Math.round((s / k) * 1e9) / 1e9), `slice ${s}: ${k}`);
  }
});

test('defaults follow serviceParam: 15 fps, 2000 kb/s from 1280×720, else 1500; profile 0 is 48 kHz mono 48 kb/s', () => {
  const args = encoderArgs(plan());
  assert.equal(after(args, '-framerate'), '15');
  assert.equal(after(args, '-r'), '15', 'the output frame rate is set, not guessed');
  assert.equal(after(args, '-video_size'), '1280x720');
  assert.equal(after(args, '-b:v'), '2000k');
  assert.equal(after(args, '-b:a'), '48k');
  assert.equal(after(args, '-ac'), '1');
  assert.equal(after(args, '-ar'), '48000');
  assert.equal(after(args, '-output_ts_offset'), '-1700000000.123');
  assert.equal(after(args, '-i'), ':7');
  assert.equal(after(args, '-itsoffset'), '-0.033333', 'a frame stands for the half period before and after its stamp');
  // The sound: raw samples on fd 5, stamped from the UTC time of the first one (µs) plus their count.
  const sound = args.indexOf('pipe:5');
  assert.deepEqual(args.slice(sound - 9, sound + 1), ['-f', 's16le', '-ar', '48000', '-ac', '1', '-itsoffset', '1700000000.345500', '-i', 'pipe:5']);
  assert.equal(resolveCaptureOptions({ workDir: '/w', width: 640, height: 360 }).videoBitrateKbps, 1500);
  const stereo = encoderArgs(plan({ options: resolveCaptureOptions({ workDir: '/w', width: 640, height: 360, audioProfile: 2 }) }));
  assert.equal(after(stereo, '-b:a'), '192k');
  assert.equal(after(stereo, '-ac'), '2');
});

test('without a push the segment muxer writes the run-numbered files; with one, a tee whose push branch (TS on fd 4) may fail', () => {
  const plain = encoderArgs(plan());
  assert.equal(after(plain, '-f'), 'x11grab');
  assert.equal(plain.at(-1), 'seg_002_%05d.ts');
  assert.equal(after(plain, '-segment_list'), 'pipe:3');
  const teed = encoderArgs(plan({ push: true }));
  const out = teed.at(-1)!;
  assert.equal(teed.at(-2), 'tee');
  const [slices, push] = out.split('|');
  // What ffmpeg sees after unescaping the bracket once: an option list whose values keep their own escapes.
  const bracket = (slave: string) => /^\[(.*)\](.*)$/.exec(slave)!.slice(1).map((x, i) => (i === 0 ? x.replace(/\\(.)/g, '$1') : x));
  assert.deepEqual(bracket(slices!), [
    'f=segment:segment_time=15:reset_timestamps=0:segment_format=mpegts:segment_format_options=mpegts_copyts\\=1\\:flush_packets\\=1:segment_list=pipe\\:3:segment_list_type=csv',
    'seg_002_%05d.ts',
  ]);
  assert.deepEqual(bracket(push!), [
    'f=mpegts:onfail=ignore:use_fifo=1:fifo_options=queue_size\\=300\\:drop_pkts_on_overflow\\=1:flush_packets=1',
    'pipe:4',
  ]);
});

test('push URLs: rtmp or rtmps', () => {
  assert.ok(isRtmpUrl('rtmps://cdn.example/live/a'));
  assert.ok(isRtmpUrl('rtmp://cdn.example/live/a?k=a|b'));
  assert.ok(!isRtmpUrl('http://cdn.example/live/a'));
  assert.throws(() => teeSlave({}, 'a|b'), RangeError);
  assert.throws(() => resolveCaptureOptions({ workDir: '/w', width: 1280, height: 720, rtmpUrl: 'ftp://x' }), /rtmpUrl/);
  assert.throws(() => resolveCaptureOptions({ workDir: '/w', width: 1920, height: 1920 }), /1920 × 1080/);
  const phone = resolveCaptureOptions({ workDir: '/w', width: 375, height: 667, mobile: true });
  assert.deepEqual([phone.width, phone.height, phone.encodedWidth, phone.encodedHeight], [375, 667, 374, 666]);
  const phoneArgs = encoderArgs(plan({ options: phone }));
  assert.ok(phoneArgs.includes('375x667'), 'the screen is grabbed at the page size');
  assert.equal(phoneArgs[phoneArgs.indexOf('-vf') + 1], 'crop=374:666:0:0');
  assert.ok(!encoderArgs(plan()).includes('-vf'), 'even sizes are encoded as grabbed');
});
