import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mixPcmFrames, softLimit, LIMITER_KNEE } from './audio-mixer.ts';
import { MIX_AUDIO_PROFILES, mixAudioProfile } from './audio-profile.ts';
import { AudioTimeline } from './audio-timeline.ts';
import { sineFrame, tonePower } from './testing/tones.ts';

const SR = 48_000;
const near = (got: number, want: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(got - want) <= tolerance, `${what}: got ${got.toFixed(4)}, want ${want} ± ${tolerance}`);

test('audio profiles: 48 kHz mono 48 kb/s, mono 128, stereo 192; others refused', () => {
  assert.deepEqual(
    MIX_AUDIO_PROFILES.map((p) => [p.id, p.sampleRate, p.channels, p.bitrateKbps]),
    [[0, SR, 1, 48], [1, SR, 1, 128], [2, SR, 2, 192]],
  );
  assert.equal(mixAudioProfile().id, 0);
  assert.throws(() => mixAudioProfile(3), /audioProfile must be 0, 1 or 2, got 3/);
});

describe('mixing', () => {
  const a = sineFrame(440, SR, 0.3, 1, 's16'); // 1 s, mono s16
  const b = sineFrame(1000, SR / 2, 0.3, 2, 'f32'); // 0.5 s, stereo f32

  test('mono output holds both tones; the shorter user is silence afterwards', () => {
    const out = mixPcmFrames([a, b], 1, 's16');
    assert.equal(out.length, SR);
    near(tonePower(out, 1, 440, 0, SR / 2), 0.09, 0.005, '440 Hz, first half');
    near(tonePower(out, 1, 1000, 0, SR / 2), 0.09, 0.005, '1 kHz (stereo averaged to mono), first half');
    near(tonePower(out, 1, 1000, SR / 2, SR), 0, 0.0005, '1 kHz gone in the second half');
    near(tonePower(out, 1, 440, SR / 2, SR), 0.09, 0.005, '440 Hz continues');
  });

  test('stereo output: mono users on both sides', () => {
    const out = mixPcmFrames([a, b], 2, 'f32');
    for (const channel of [0, 1]) {
      near(tonePower(out, 2, 440, 0, SR / 2, channel), 0.09, 0.005, `440 Hz on channel ${channel}`);
      near(tonePower(out, 2, 1000, 0, SR / 2, channel), 0.09, 0.005, `1 kHz on channel ${channel}`);
    }
  });

  test('no users: empty output', () => {
    assert.equal(mixPcmFrames([], 1, 's16').length, 0);
  });
});

describe('soft limiter', () => {
  test('transparent below the knee, smooth above it, never beyond full scale', () => {
    assert.equal(softLimit(0.5), 0.5);
    assert.equal(softLimit(-LIMITER_KNEE), -LIMITER_KNEE);
    near(softLimit(LIMITER_KNEE + 1e-6), LIMITER_KNEE + 1e-6, 1e-9, 'continuous at the knee');
    assert.ok(softLimit(10) <= 1 && softLimit(10) > 0.99 && softLimit(1) < 1, 'never beyond full scale');
    assert.equal(softLimit(-3), -softLimit(3));
    for (let x = 0; x < 2; x += 0.01) assert.ok(softLimit(x + 0.01) > softLimit(x), 'monotonic');
  });

  test('three loud users never wrap around s16 and both tones survive', () => {
    const frames = [sineFrame(440, SR / 4, 0.9, 1, 's16'), sineFrame(660, SR / 4, 0.9, 1, 's16'), sineFrame(880, SR / 4, 0.9, 1, 'f32')];
    const out = mixPcmFrames(frames, 1, 's16');
    let peak = 0;
    for (const v of out) peak = Math.max(peak, Math.abs(v));
    assert.ok(peak <= 32767 && peak > 30000, `peak ${peak}`);
    for (const hz of [440, 660, 880]) assert.ok(tonePower(out, 1, hz) > 0.05, `${hz} Hz present`);
  });
});

describe('timeline alignment on sender clocks', () => {
  const CHUNK = 960; // 20 ms

  /** Drives a timeline the way a recorder does: pushes as chunks arrive, pulls what is due 100 ms behind. */
  function run(seconds: number, chunksAt: (ms: number) => { uid: string; stampMs: number; hz: number; frameOffset: number }[]) {
    const timeline = new AudioTimeline({ originMs: 10_000, channels: 1 });
    const pulled: Int16Array[] = [];
    for (let now = 10_000; now <= 10_000 + seconds * 1000 + 200; now += 20) {
      for (const c of chunksAt(now)) timeline.push(c.uid, c.stampMs, sineFrame(c.hz, CHUNK, 0.3, 1, 's16', c.frameOffset));
      const due = timeline.framesDue(now, 100);
      if (due > 0) pulled.push(timeline.pull(due, 's16') as Int16Array);
    }
    const out = new Int16Array(pulled.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of pulled) {
      out.set(p, at);
      at += p.length;
    }
    return { out, timeline };
  }

  test('a late joiner starts at its own time; stamp jitter is absorbed; a gap is silence', () => {
    const jitter = [0, 3, -2, 4, -4, 1];
    const { out } = run(3, (now) => {
      const t = now - 10_000; // chunk covering [t, t+20) arrives now
      const chunks = [{ uid: 'a', stampMs: now + jitter[(t / 20) % 6]!, hz: 440, frameOffset: (t / 20) * CHUNK }];
      const inGap = t >= 2000 && t < 2200;
      if (t >= 1000 && !inGap) chunks.push({ uid: 'b', stampMs: now + (t === 1000 ? 0 : jitter[(t / 20 + 3) % 6]!), hz: 1000, frameOffset: (t / 20) * CHUNK });
      return chunks;
    });
    assert.ok(out.length >= 3 * SR, `pulled ${out.length} frames`);
    near(tonePower(out, 1, 440, 0, SR), 0.09, 0.005, 'a from the start');
    near(tonePower(out, 1, 1000, 0, SR - 480), 0, 0.0005, 'b not before it joined');
    near(tonePower(out, 1, 1000, SR, 2 * SR), 0.09, 0.005, 'b after 1 s');
    near(tonePower(out, 1, 1000, SR, SR + 480), 0.09, 0.01, 'b from its first 10 ms');
    near(tonePower(out, 1, 1000, 2 * SR + 480, 105_600 - 480), 0, 0.0005, 'the gap in b is silence');
    near(tonePower(out, 1, 1000, 105_600 + 960, 139_200), 0.09, 0.005, 'b resumes at its stamp');
    near(tonePower(out, 1, 440, 2 * SR, 3 * SR), 0.09, 0.005, 'a unaffected, past the ring\'s wrap-around');
  });

  test('late chunks are dropped, straddling ones trimmed, duplicates ignored, far-future ones refused', () => {
    const t = new AudioTimeline({ originMs: 0, channels: 2, capacityMs: 1000 });
    assert.deepEqual(t.push('a', 0, sineFrame(440, CHUNK, 0.3, 1, 'f32')), { kind: 'placed', atFrame: 0, frames: CHUNK, trimmedFrames: 0 });
    assert.deepEqual(t.push('a', 0, sineFrame(440, CHUNK, 0.3, 1, 'f32')), { kind: 'dropped', reason: 'duplicate', frames: CHUNK });
    t.pull(SR / 2, 'f32'); // cursor at 500 ms
    assert.deepEqual(t.push('b', 100, sineFrame(440, CHUNK, 0.3, 1, 'f32')), { kind: 'dropped', reason: 'late', frames: CHUNK });
    assert.deepEqual(t.push('b', 490, sineFrame(440, CHUNK, 0.3, 1, 'f32')), { kind: 'placed', atFrame: SR / 2, frames: 480, trimmedFrames: 480 });
    assert.deepEqual(t.push('c', 1600, sineFrame(440, CHUNK, 0.3, 1, 'f32')), { kind: 'dropped', reason: 'too-early', frames: CHUNK });
    assert.equal(t.push('c', 1490, sineFrame(440, CHUNK, 0.3, 1, 'f32')).kind, 'placed');
    assert.equal(t.cursorMs, 500);
    assert.throws(() => t.pull(SR * 2, 's16'), /frames must be a whole number from 0 to 48000/);
  });

  test('a doubled chunk does not double the level', () => {
    const t = new AudioTimeline({ originMs: 0, channels: 1 });
    const chunk = sineFrame(440, SR / 10, 0.3, 1, 's16');
    t.push('a', 0, chunk);
    t.push('a', 0, chunk);
    near(tonePower(t.pull(SR / 10, 'f32'), 1, 440), 0.09, 0.005, 'level of one copy');
  });
});
