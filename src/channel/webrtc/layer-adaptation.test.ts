import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADAPTATION_RULES, adapt, adaptedLayer, startAdaptation, type LayerAdaptation } from './layer-adaptation.ts';

/** Feeds reports one second apart from `from`; returns the layers after each. */
function run(losses: readonly number[], from: LayerAdaptation = startAdaptation(), start = 0): { layers: string[]; last: LayerAdaptation } {
  let s = from;
  const layers: string[] = [];
  losses.forEach((loss, i) => {
    s = adapt(s, loss, start + i * 1000);
    layers.push(adaptedLayer(s));
  });
  return { layers, last: s };
}

test('random loss of a few percent keeps the high layer; one lossy report alone does not move it', () => {
  const { layers } = run([0.05, 0.04, 0.12, 0.03, 0.06, 0.15, 0.02, 0.05]);
  assert.ok(layers.every((l) => l === 'high'), layers.join());
});

test('an overflowing link (one report above 30 %, or two above 10 % in a row) moves the viewer to the low layer', () => {
  assert.equal(run([0.01, 0.45]).layers.at(-1), 'low');
  assert.deepEqual(run([0.01, 0.12, 0.14]).layers, ['high', 'high', 'low']);
});

test('on the low layer: the high one is tried after the back-off and a clean report, kept after 5 clean seconds', () => {
  const down = run([0.5]).last;
  // Back-off 8 s: a clean report before it keeps the low layer, one after it tries the high one.
  assert.equal(adaptedLayer(adapt(down, 0, 7000)), 'low');
  assert.equal(adaptedLayer(adapt(down, 0.05, 8000)), 'low', 'a lossy report after the back-off is not clean');
  const trying = adapt(down, 0, 8000);
  assert.equal(trying.kind, 'trying');
  assert.equal(adaptedLayer(trying), 'high');
  const kept = run([0, 0.01, 0, 0, 0, 0], trying, 9000).last;
  assert.equal(kept.kind, 'high');
  assert.equal(kept.backoffMs, ADAPTATION_RULES.backoffMs);
});

test('a try that overflows goes back down with the back-off doubled, up to 64 s', () => {
  let s = run([0.5]).last;
  const backoffs: number[] = [];
  let at = 0;
  for (let i = 0; i < 5; i++) {
    at += s.backoffMs;
    s = adapt(s, 0, at);
    assert.equal(s.kind, 'trying');
    s = adapt(s, 0.4, at + 1000);
    assert.equal(s.kind, 'low');
    backoffs.push(s.backoffMs);
    at += 1000;
  }
  assert.deepEqual(backoffs, [16_000, 32_000, 64_000, 64_000, 64_000]);
});
