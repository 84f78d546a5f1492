import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../clock/index.ts';
import { mixAudioProfile } from '../audio-profile.ts';
import { hexToYuv, type YuvColour } from '../colour.ts';
import { type I420Frame, i420PixelAt, solidI420Frame } from '../i420.ts';
import { completeMixLayoutSettings, MIX_LAYOUT } from '../layout-settings.ts';
import type { MixRegion } from '../region.ts';
import { sineFrame, tonePower } from '../testing/tones.ts';
import { FrameClock } from './frame-clock.ts';
import { MixEngine, type MixOutputFrame } from './mix-engine.ts';

const canvas = { width: 640, height: 360 };
const RED = hexToYuv('#FF0000');
const BLUE = hexToYuv('#0000FF');
const GREEN = hexToYuv('#00FF00');

function centreColour(frame: I420Frame | null, region: MixRegion): YuvColour {
  assert.ok(frame, 'a composed frame');
  return i420PixelAt(frame, region.rect.x + (region.rect.width >> 1), region.rect.y + (region.rect.height >> 1));
}

function regionOf(out: MixOutputFrame, uid: string): MixRegion {
  const region = out.regions.find((r) => r.uid === uid);
  assert.ok(region, `no region for ${uid}`);
  return region;
}

/** An engine driven by a FrameClock on a ManualClock; the test plays the decoders. */
function harness() {
  const clock = new ManualClock();
  const engine = new MixEngine({
    canvas,
    fps: 15,
    audioProfile: mixAudioProfile(0),
    originMs: clock.now(),
    settings: completeMixLayoutSettings({ kind: MIX_LAYOUT.bestFit }),
    latencyMs: 200,
  });
  const frames: MixOutputFrame[] = [];
  const ticker = new FrameClock(clock, clock.now(), 15, (index) => frames.push(engine.frame(index)));
  return { clock, engine, frames, ticker };
}

/** Two users a (red) and b (blue) in join order; `tick` plays the decoders every 1/15 s for 6 s. */
function playTwoUsers(h: ReturnType<typeof harness>, tick: (t: number, red: I420Frame, blue: I420Frame) => void): (ms: number) => MixOutputFrame {
  h.engine.join('a');
  h.engine.join('b');
  const red = solidI420Frame(320, 180, RED);
  const blue = solidI420Frame(320, 180, BLUE);
  h.ticker.start();
  for (let t = 0; t < 6000; t += 1000 / 15) {
    tick(t, red, blue);
    h.clock.advance(1000 / 15);
  }
  h.ticker.stop();
  return (ms) => h.frames[Math.round((ms * 15) / 1000)]!;
}

test('the frame clock emits exactly fps frames per second whatever the inputs do, catching up after a late wake-up', () => {
  const { clock, frames, ticker, engine } = harness();
  engine.join('a');
  ticker.start();
  clock.advance(1000);
  assert.equal(frames.length, 16); // frames 0…15, the 16th standing at t = 1 s
  ticker.stop();
  // A wake-up long after frames fell due (a busy event loop): every missed frame comes out at once, in order.
  const caughtUp: number[] = [];
  const late = new FrameClock(clock, clock.now() - 1700, 15, (index) => caughtUp.push(index));
  late.start();
  late.stop();
  assert.deepEqual(caughtUp, Array.from({ length: Math.floor((1700 * 15) / 1000) + 1 }, (_, i) => i));
  assert.deepEqual(
    frames.map((f) => f.index),
    frames.map((_, i) => i),
  );
  assert.ok(frames.every((f) => f.audio.length === 3200), 'each frame carries 1/15 s of 48 kHz audio');
});

test('a frame clock far behind yields to the event loop between runs of frames, and still emits every frame in order', () => {
  const clock = new ManualClock();
  const emitted: number[] = [];
  // Each frame costs 10 ms of real time (a mix composing slower than real time on a starved CPU).
  const late = new FrameClock(clock, clock.now() - 1700, 15, (index) => {
    const until = performance.now() + 10;
    while (performance.now() < until);
    emitted.push(index);
  });
  late.start();
  const firstRun = emitted.length;
  assert.ok(firstRun >= 1 && firstRun <= 8, `one wake-up emitted ${firstRun} of 26 due frames before yielding`);
  // The rest come on the following wake-ups (due at once: the clock is behind).
  clock.advance(0);
  late.stop();
  assert.deepEqual(emitted, Array.from({ length: 26 }, (_, i) => i));
});

test('a stalled user keeps its last frame for 3.5 s, then the background shows; other users go on', () => {
  const h = harness();
  const { clock, engine } = h;
  engine.setImages({ canvas: solidI420Frame(64, 36, GREEN), defaultUser: null, users: new Map() });
  // a sends every frame for 6 s; b sends for the first second, then stalls without leaving.
  const at = playTwoUsers(h, (t, red, blue) => {
    engine.videoFrame('a', red, clock.now());
    if (t < 1000) engine.videoFrame('b', blue, clock.now());
  });
  assert.deepEqual(centreColour(at(4000).video, regionOf(at(4000), 'b')), BLUE, 'held under 3.5 s');
  // b's last frame was sent just before 1 s and shown 200 ms later (the latency): the background from 4.7 s.
  assert.deepEqual(centreColour(at(4600).video, regionOf(at(4600), 'b')), BLUE, 'held under 3.5 s');
  assert.deepEqual(centreColour(at(4800).video, regionOf(at(4800), 'b')), GREEN, 'background after 3.5 s');
  for (const ms of [500, 4000, 5900]) assert.deepEqual(centreColour(at(ms).video, regionOf(at(ms), 'a')), RED);
  assert.equal(h.frames.length, 91);
});

test('a layout change shows from the next composed frame', () => {
  const { clock, frames, ticker, engine } = harness();
  engine.join('a');
  engine.join('b');
  engine.videoFrame('a', solidI420Frame(320, 180, RED), clock.now());
  engine.videoFrame('b', solidI420Frame(320, 180, BLUE), clock.now());
  ticker.start();
  clock.advance(500);
  const before = frames.length;
  engine.setLayout(completeMixLayoutSettings({ kind: MIX_LAYOUT.vertical, maxResolutionUid: 'b' }));
  clock.advance(1000 / 15);
  ticker.stop();
  const old = frames[before - 1]!;
  const next = frames[before]!;
  assert.deepEqual(regionOf(old, 'a').rect, { x: 0, y: 0, width: 320, height: 360 });
  assert.deepEqual(regionOf(next, 'b').rect, { x: 0, y: 0, width: 512, height: 360 });
  assert.deepEqual(centreColour(next.video, regionOf(next, 'b')), BLUE);
  assert.deepEqual(centreColour(next.video, regionOf(next, 'a')), RED);
});

test('audio lands at its sender time: a late joiner starts where it joined, silence before', () => {
  const { clock, frames, ticker, engine } = harness();
  const origin = clock.now();
  engine.join('a');
  ticker.start();
  // a's decoder delivers 20 ms chunks stamped from t = 1 s, 100 ms after they were sent.
  for (let t = 0; t < 3000; t += 20) {
    const sent = t - 100;
    if (sent >= 1000) engine.audio('a', origin + sent, sineFrame(440, 960, 0.5, 1, 's16', ((sent - 1000) * 48)));
    clock.advance(20);
  }
  ticker.stop();
  // Output audio of frame n covers sender time origin + n/15 s − 200 ms (the jitter window).
  const pcm = Int16Array.from(frames.flatMap((f) => [...f.audio]));
  const senderFrame = (ms: number): number => ((ms + 200) * 48_000) / 1000;
  assert.ok(tonePower(pcm, 1, 440, senderFrame(200), senderFrame(900)) < 1e-6, 'silence before the join');
  assert.ok(tonePower(pcm, 1, 440, senderFrame(1100), senderFrame(2500)) > 0.2, 'the tone after it');
});

test('a user who leaves shows the canvas colour for 3.5 s, then the layout reflows without them', () => {
  const h = harness();
  const { clock, engine } = h;
  engine.setLayout(completeMixLayoutSettings({ kind: MIX_LAYOUT.bestFit, backgroundColor: '#00FF00' }));
  const at = playTwoUsers(h, (t, red, blue) => {
    if (t < 1000) engine.videoFrame('a', red, clock.now());
    engine.videoFrame('b', blue, clock.now());
    if (Math.abs(t - 1000) < 1) engine.leave('a', clock.now());
  });
  assert.deepEqual(centreColour(at(900).video, regionOf(at(900), 'a')), RED);
  assert.deepEqual(centreColour(at(2000).video, regionOf(at(2000), 'a')), GREEN, 'the canvas colour while leaving');
  assert.deepEqual(regionOf(at(2000), 'b').rect, { x: 320, y: 0, width: 320, height: 360 });
  assert.ok(!at(4600).regions.some((r) => r.uid === 'a'), 'gone after 3.5 s');
  assert.deepEqual(regionOf(at(4600), 'b').rect, { x: 0, y: 0, width: 640, height: 360 }, 'b moves up');
  assert.deepEqual(centreColour(at(4600).video, regionOf(at(4600), 'b')), BLUE);
});
