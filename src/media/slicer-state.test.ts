// A TrackPipeline's state and its one transition function (pure): what each input does in each state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FfmpegExit } from './ffmpeg.ts';
import { INITIAL_SLICER_STATE, INPUT_TIMEOUT_MS, isBound, stepSlicer, type SlicerEffect, type SlicerInput, type SlicerState } from './slicer-state.ts';

/** Runs inputs from a state; the last state and every effect's kind in order. */
function run(from: SlicerState, ...inputs: SlicerInput[]): { state: SlicerState; effects: SlicerEffect[] } {
  let state = from;
  const effects: SlicerEffect[] = [];
  for (const i of inputs) {
    const step = stepSlicer(state, i);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}
const kinds = (effects: readonly SlicerEffect[]) => effects.map((e) => e.kind);
const packet: SlicerInput = { kind: 'packet' };
const crash: FfmpegExit = { code: null, signal: 'SIGKILL', clean: false, stderrTail: '' };
const quiet: FfmpegExit = { code: 0, signal: null, clean: true, stderrTail: '/w/s1/input.sdp: Connection timed out\n' };

test('a copying slicer launches when its socket is open, holds packets until the bind, then sends them', () => {
  const held = run(INITIAL_SLICER_STATE, packet, { kind: 'opened', launchOnPacket: false }, packet);
  assert.equal(held.state.kind, 'binding');
  assert.deepEqual(held.effects, [{ kind: 'hold' }, { kind: 'launch', awaited: true }, { kind: 'hold' }]);
  const bound = run(held.state, { kind: 'bound' }, packet);
  assert.equal(bound.state.kind, 'running');
  assert.ok(isBound(bound.state));
  assert.deepEqual(bound.effects, [{ kind: 'flush-held', send: true }, { kind: 'send' }]);
});

test('a transcoding slicer waits for its first packet to launch (the packet is held first: it gives the channel count)', () => {
  const waiting = run(INITIAL_SLICER_STATE, { kind: 'opened', launchOnPacket: true });
  assert.equal(waiting.state.kind, 'awaiting-packet');
  assert.deepEqual(waiting.effects, []);
  const first = run(waiting.state, packet);
  assert.equal(first.state.kind, 'binding');
  assert.deepEqual(first.effects, [{ kind: 'hold' }, { kind: 'launch', awaited: false }]);
  // A stop before any packet: nothing was launched, the port is given back; later packets launch nothing.
  const stopped = run(waiting.state, { kind: 'stop' }, packet, { kind: 'stopped' });
  assert.deepEqual(stopped.state, { kind: 'ended', by: 'stop' });
  assert.deepEqual(kinds(stopped.effects), ['release-port', 'hold', 'finish']);
});

test('a stop while binding keeps holding, sends the held packets on the bind, then finishes; a second stop does nothing', () => {
  const r = run({ kind: 'binding' }, { kind: 'stop' }, packet, { kind: 'bound' }, packet);
  assert.deepEqual(r.state, { kind: 'stopping', bound: true });
  assert.ok(isBound(r.state), 'the BYE goes to a bound port');
  assert.deepEqual(kinds(r.effects), ['hold', 'flush-held', 'send']);
  const end = run(r.state, { kind: 'stopped' }, { kind: 'stop' }, packet, { kind: 'exited', exit: crash, idleMs: 0, inputTimedOut: false });
  assert.deepEqual(end.state, { kind: 'ended', by: 'stop' });
  assert.deepEqual(kinds(end.effects), ['finish'], 'the exit after stop() is stop()\'s: not reported as a crash');
  // A stop during start gives the port back when the socket opens.
  const early = run(INITIAL_SLICER_STATE, { kind: 'stop' }, { kind: 'stopped' }, { kind: 'opened', launchOnPacket: false });
  assert.deepEqual(kinds(early.effects), ['finish', 'release-port']);
});

test('ffmpeg ending on its own ends the pipeline once, told apart as a quiet input or a failure; later packets are dropped', () => {
  const crashed = run({ kind: 'running' }, { kind: 'exited', exit: crash, idleMs: INPUT_TIMEOUT_MS, inputTimedOut: false });
  assert.deepEqual(crashed.state, { kind: 'ended', by: 'exit' });
  assert.deepEqual(crashed.effects, [{ kind: 'ended-alone', end: 'failure', exit: crash, idleMs: INPUT_TIMEOUT_MS }]);
  const after = run(crashed.state, packet, { kind: 'stop' }, { kind: 'exited', exit: crash, idleMs: 0, inputTimedOut: false });
  assert.deepEqual(after.effects, []);
  const timedOut = run({ kind: 'running' }, { kind: 'exited', exit: quiet, idleMs: INPUT_TIMEOUT_MS + 100, inputTimedOut: true });
  assert.deepEqual(kinds(timedOut.effects), ['ended-alone']);
  assert.equal((timedOut.effects[0] as Extract<SlicerEffect, { kind: 'ended-alone' }>).end, 'inputTimeout');
  // Ended while binding: the held packets go nowhere.
  const duringBind = run({ kind: 'binding' }, { kind: 'exited', exit: crash, idleMs: 0, inputTimedOut: false }, { kind: 'bound' });
  assert.deepEqual(duringBind.effects.at(-1), { kind: 'flush-held', send: false });
});
