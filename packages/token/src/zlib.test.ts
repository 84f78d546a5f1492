// The reused zlib states must behave exactly like deflateSync / inflateSync, whatever came before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { deflateEngineActive, deflateToBase64 } from './deflate.ts';
import { inflateCapped, inflateCappedPublic, inflateEngineActive } from './inflate.ts';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Token-like payloads: random bytes mixed with runs of a few letters, of very different lengths. */
function payloads(n: number, seed: number): Buffer[] {
  const rnd = prng(seed);
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const len = [0, 1, 20, 94, 150, 180, 300, 1000, 5000, 20_000][Math.floor(rnd() * 10)]! + Math.floor(rnd() * 60);
    const b = Buffer.alloc(len);
    const alphabet = 1 + Math.floor(rnd() * 6);
    for (let k = 0; k < len; k++) b[k] = rnd() < 0.25 ? Math.floor(rnd() * 256) : 48 + Math.floor(rnd() * alphabet);
    out.push(b);
  }
  return out;
}

test('reused deflate state gives deflateSync output byte for byte, in any order of sizes', () => {
  for (const p of payloads(1000, 1)) assert.equal(deflateToBase64(p), deflateSync(p).toString('base64'), `length ${p.length}`);
  // On this Node the fast path must be live, or the benchmark figures mean nothing.
  assert.equal(deflateEngineActive(), true, 'node:zlib internals changed: builds fall back to deflateSync (correct, but slower)');
});

test('reused inflate state agrees with inflateSync on good, truncated, padded and oversized streams', () => {
  const rnd = prng(2);
  const max = 64 * 1024;
  const cases: Buffer[] = [];
  for (const p of payloads(600, 3)) {
    const z = deflateSync(p);
    cases.push(z, z.subarray(0, Math.floor(rnd() * z.length)), Buffer.concat([z, Buffer.from([Math.floor(rnd() * 256)])]));
    const flipped = Buffer.from(z);
    if (flipped.length > 0) flipped[Math.floor(rnd() * flipped.length)]! ^= 1 << Math.floor(rnd() * 8);
    cases.push(flipped);
  }
  cases.push(deflateSync(Buffer.alloc(max)), deflateSync(Buffer.alloc(max + 1)), Buffer.alloc(0));
  for (const [i, c] of cases.entries()) {
    const a = inflateCapped(c, max);
    const b = inflateCappedPublic(c, max);
    assert.equal(a.ok, b.ok, `case ${i}`);
    if (a.ok && b.ok) assert.ok(a.data.equals(b.data), `case ${i}`);
    if (!a.ok && !b.ok) assert.equal(a.message, b.message, `case ${i}`);
  }
  assert.equal(inflateEngineActive(), true, 'node:zlib internals changed: parsing falls back to inflateSync (correct, but slower)');
});
