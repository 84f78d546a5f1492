// zlib compression of token payloads, byte-identical to `zlib.deflateSync(payload)` (level 6, 32 KiB window).
//
// deflateSync builds and frees a ~270 KiB zlib state per call, which is most of the cost of building a token.
// Node has no public synchronous API that reuses a state, so this keeps one Deflate object and drives its native
// handle directly (deflateReset between calls). That handle is an internal of node:zlib, hence the guards: it is
// feature-detected, checked once against deflateSync at first use, and any surprise switches permanently to
// deflateSync. The compatibility tests compare the output with the official builder's on every run.
import { constants, createDeflate, deflateSync } from 'node:zlib';
import { nativeZlib, type NativeZlib } from './zlib-handle.ts';

interface Engine {
  readonly handle: NativeZlib;
  readonly state: Uint32Array;
  out: Buffer;
  /** Length of the longest input since the window was last zeroed. */
  dirty: number;
}

let engine: Engine | undefined;
let disabled = false;
let calls = 0;
// The payload cap is 64 KiB, so zeros of that size cover any window the builder used.
const ZEROS = Buffer.alloc(64 * 1024);

function openEngine(): Engine | undefined {
  try {
    const native = nativeZlib(createDeflate());
    if (!native) return undefined;
    const e: Engine = { ...native, out: Buffer.allocUnsafe(4096), dirty: 0 };
    // Self-check on a sample with repeats (matches) and literals before trusting the engine.
    const sample = Buffer.from('007 self-check 970CA35de60c44645bbae8a215061b33 970CA35de60c44645bbae8a215061b33 \u0000\u0001\u00ff');
    const a = run(e, sample);
    const b = run(e, sample);
    return a !== undefined && a === b && a === deflateSync(sample).toString('base64') ? e : undefined;
  } catch {
    return undefined;
  }
}

/** Base64 of one complete zlib stream for input, or undefined when the engine did not finish as expected. */
function run(e: Engine, input: Uint8Array): string | undefined {
  // Room for the worst case (stored blocks) so one call finishes the stream.
  const bound = Math.max(input.length, e.dirty) + (input.length >> 8) + 64;
  if (e.out.length < bound) e.out = Buffer.allocUnsafe(Math.max(bound, e.out.length * 2));
  // deflateReset keeps the old window bytes, and the matcher looks up to 258 bytes past the end of the input,
  // where a fresh state has zeros. Window bytes beyond `dirty` are zero, so when an earlier input was longer,
  // compressing zeros over it first restores the fresh state's view.
  if (e.dirty > input.length) {
    e.handle.writeSync(constants.Z_FINISH, ZEROS, 0, e.dirty, e.out, 0, e.out.length);
    e.handle.reset();
    e.dirty = 0;
  }
  e.dirty = input.length;
  e.handle.writeSync(constants.Z_FINISH, input, 0, input.length, e.out, 0, e.out.length);
  const availOut = e.state[0]!;
  const availIn = e.state[1]!;
  e.handle.reset();
  if (availIn !== 0 || availOut === 0) return undefined;
  return e.out.subarray(0, e.out.length - availOut).toString('base64');
}

/** Base64 of the zlib (RFC 1950) stream of input at level 6: `deflateSync(input).toString('base64')`. */
export function deflateToBase64(input: Uint8Array): string {
  if (!disabled && input.length <= ZEROS.length) {
    engine ??= openEngine();
    if (engine) {
      try {
        const out = run(engine, input);
        // A sampled cross-check keeps watching for a zlib whose reset behaves differently from a fresh state.
        if (out !== undefined && (++calls & 255) !== 0) return out;
        if (out !== undefined && out === deflateSync(input).toString('base64')) return out;
      } catch {
        // fall through to the public API
      }
    }
    disabled = true;
    engine = undefined;
  }
  return deflateSync(input).toString('base64');
}

/** For tests and diagnostics: whether the reused native state is in use (false after a fallback). */
export function deflateEngineActive(): boolean {
  return !disabled && engine !== undefined;
}
