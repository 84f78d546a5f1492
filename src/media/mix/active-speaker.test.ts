import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActiveSpeakerSelector, rmsDbfs, rtpAudioLevelToDbfs, SILENCE_DBFS } from './active-speaker.ts';
import { sineFrame } from './testing/tones.ts';

const CHUNK = 960; // 20 ms at 48 kHz
const LOUD = sineFrame(300, CHUNK, 0.5, 1, 's16').samples;
const QUIET = sineFrame(300, CHUNK, 0.003, 1, 's16').samples; // background noise level, about −53 dBFS

/** Runs two users whose tones alternate per `loudA(t)`; returns the switch times and speakers. */
function alternate(seconds: number, loudA: (ms: number) => boolean, selector = new ActiveSpeakerSelector()) {
  const switches: { atMs: number; uid: string }[] = [];
  for (let t = 0; t < seconds * 1000; t += 20) {
    selector.observe('a', t, rmsDbfs(loudA(t) ? LOUD : QUIET));
    selector.observe('b', t, rmsDbfs(loudA(t) ? QUIET : LOUD));
    const before = selector.speaker;
    const after = selector.update(t);
    if (after !== null && after !== before) switches.push({ atMs: t, uid: after });
  }
  return switches;
}

test('levels: a half-scale sine is about −9 dBFS; silence and RTP audio levels', () => {
  assert.ok(Math.abs(rmsDbfs(LOUD) - -9.03) < 0.1, `${rmsDbfs(LOUD)}`);
  assert.equal(rmsDbfs(new Int16Array(960)), SILENCE_DBFS);
  assert.equal(rtpAudioLevelToDbfs(30), -30);
  assert.equal(rtpAudioLevelToDbfs(200), -127);
});

test('tones alternating every 3 s: the main speaker follows within a second', () => {
  const switches = alternate(12, (t) => Math.floor(t / 3000) % 2 === 0);
  assert.deepEqual(switches.map((s) => s.uid), ['a', 'b', 'a', 'b']);
  switches.slice(1).forEach((s, i) => {
    const turn = (i + 1) * 3000;
    assert.ok(s.atMs >= turn && s.atMs < turn + 1000, `switch to ${s.uid} at ${s.atMs} ms, turn at ${turn} ms`);
  });
});

test('tones alternating every 0.4 s: the speaker stays put (neither is clearly louder over the window)', () => {
  assert.deepEqual(alternate(12, (t) => Math.floor(t / 400) % 2 === 0).map((s) => s.uid), ['a']);
});

test('even without hysteresis, never two switches within 1.5 s', () => {
  const switches = alternate(12, (t) => Math.floor(t / 400) % 2 === 0, new ActiveSpeakerSelector({ hysteresisDb: 0 }));
  assert.ok(switches.length >= 4, `it keeps following the conversation: ${switches.length} switches`);
  for (let i = 1; i < switches.length; i++) {
    assert.ok(switches[i]!.atMs - switches[i - 1]!.atMs >= 1500, `switches at ${switches[i - 1]!.atMs} and ${switches[i]!.atMs} ms`);
  }
});

test('hysteresis: a slightly louder second talker does not take over, a clearly louder one does', () => {
  const s = new ActiveSpeakerSelector();
  for (let t = 0; t < 2000; t += 20) {
    s.observe('a', t, -20);
    s.update(t);
  }
  assert.equal(s.speaker, 'a');
  for (let t = 2000; t < 5000; t += 20) {
    s.observe('a', t, -20);
    s.observe('b', t, -17);
    s.update(t);
  }
  assert.equal(s.speaker, 'a', '3 dB louder is not enough');
  for (let t = 5000; t < 6000; t += 20) {
    s.observe('a', t, -20);
    s.observe('b', t, -10);
    s.update(t);
  }
  assert.equal(s.speaker, 'b', '10 dB louder takes over');
});

test('nobody above the speech threshold: no speaker; the speaker leaving hands over at once', () => {
  const s = new ActiveSpeakerSelector();
  s.observe('a', 0, -70);
  assert.equal(s.update(0), null);
  s.observe('a', 20, -10);
  s.observe('b', 20, -30);
  assert.equal(s.update(20), 'a');
  s.remove('a');
  s.observe('b', 40, -30);
  assert.equal(s.update(40), 'b', 'no 1.5 s wait when the speaker is gone');
});
