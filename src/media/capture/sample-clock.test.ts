import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOSS_MS, LOSS_WINDOW_MS, MAX_PLAY_DELAY_MS, PLAY_REPORTS, SampleClock } from './sample-clock.ts';

const RATE = 48_000;
/** Feeds 20 ms batches (960 samples) captured from `t0`, each arriving `delay(i)` ms after its last sample. */
function feed(clock: SampleClock, t0: number, batches: number, delay: (i: number) => number, from = 0): number[] {
  const silences: number[] = [];
  for (let i = from; i < from + batches; i++) silences.push(clock.arrived(960, t0 + (i + 1) * 20 + delay(i)));
  return silences;
}

test('the anchor is the tightest bound: late batches (a busy reader) do not move it', () => {
  const c = new SampleClock(RATE);
  assert.equal(c.anchorMs, undefined);
  // A start-up burst: the first second's 50 batches arrive together 40 ms after its end, then mostly 3–39 ms
  // late, one 2 ms.
  feed(c, 1_000_000, 50, (i) => 1000 - i * 20 + 20);
  assert.equal(c.anchorMs, 1_000_040);
  assert.ok(c.anchorMs! > 1_000_000, 'the burst alone only gives a loose bound');
  feed(c, 1_000_000, 200, (i) => (i === 120 ? 2 : 3 + (i % 7) * 6), 50);
  assert.equal(c.anchorMs, 1_000_002);
  assert.equal(c.samples, 250 * 960);
  // Sample i was captured at anchor + i / rate, and the index of a time rounds up to the next sample.
  assert.equal(c.timeOf(48_000), 1_001_002);
  assert.equal(c.indexAt(1_001_002), 48_000);
  assert.equal(c.indexAt(1_001_002.01), 48_001);
});

test('samples lost for a whole window are filled with silence; jitter below the limit is not', () => {
  const c = new SampleClock(RATE);
  const jitter = feed(c, 0, 400, (i) => 5 + (i % 5) * 15);
  assert.deepEqual(jitter.filter((s) => s > 0), [], 'reader jitter up to 65 ms is no loss');
  // 150 ms of samples never arrive: every later batch looks 150 ms late. After a whole window, 150 ms of silence.
  const lost = 150;
  const after = feed(c, lost, 2 * (LOSS_WINDOW_MS / 20) + 10, () => 5, 400);
  const inserted = after.filter((s) => s > 0);
  assert.equal(inserted.length, 1);
  assert.equal(inserted[0], (lost * RATE) / 1000);
  assert.equal(c.anchorMs, 5);
  // Once filled, the timeline says again when each sample was captured.
  assert.ok(LOSS_MS <= lost);
});

test('samples are stamped when they play: the server’s position, a little later than their arrival', () => {
  const c = new SampleClock(RATE);
  feed(c, 0, 100, () => 3);
  assert.equal(c.timeOf(0), 3);
  // A report 1 s off (seen at the start of a stream), then the server's steady reports: sample 48000·k/20 plays
  // 12 ms after its arrival-based time (reports reach us 0–4 ms late).
  c.played(0, -1000);
  for (let k = 1; k < PLAY_REPORTS; k++) {
    assert.equal(c.playDelayMs, 0, 'until enough reports came');
    c.played(k * 50, 3 + k * 50 + 12 + (k % 5));
  }
  assert.equal(c.playDelayMs, 14);
  assert.equal(c.timeOf(48_000), 1017);
  assert.equal(c.indexAt(1017), 48_000);
  // Reports far off do not make a delay beyond the bound.
  for (let k = 0; k < PLAY_REPORTS; k++) c.played(0, 5000);
  assert.equal(c.playDelayMs, MAX_PLAY_DELAY_MS);
});
