// zlib (RFC 1950) decompression of token bodies with a size cap, strict about truncation and trailing bytes.
//
// inflateSync builds a stream object and a native state per call, which dominated verification time. As in
// deflate.ts, one native handle of node:zlib is reused (inflateReset between calls); it is feature-detected and
// self-checked, and any surprise falls back to inflateSync, which gives the same answers. The bytes are decoded
// by the same zlib either way; only the JavaScript wrapper differs.
import { constants, createInflate, deflateSync, inflateSync } from 'node:zlib';
import { nativeZlib, type NativeZlib } from './zlib-handle.ts';

interface Engine {
  readonly handle: NativeZlib;
  readonly state: Uint32Array;
  readonly out: Buffer;
  error: string | undefined;
}

/** Either the inflated bytes (a fresh Buffer) or why the stream was refused. */
export type InflateResult = { readonly ok: true; readonly data: Buffer } | { readonly ok: false; readonly message: string };

let engine: Engine | undefined;
let engineMax = -1;
let disabled = false;

function openEngine(max: number): Engine | undefined {
  try {
    const native = nativeZlib(createInflate());
    if (!native) return undefined;
    const e: Engine = { ...native, out: Buffer.allocUnsafe(max + 1), error: undefined };
    // Errors arrive through this callback during writeSync; Node's own handler would destroy the stream.
    e.handle.onerror = (message: string) => {
      e.error = message;
    };
    const text = 'self-check: abcdefghijklmnopqrstuvwxyz abcdefghijklmnopqrstuvwxyz';
    const sample = deflateSync(text);
    const good = run(e, sample);
    const bad = run(e, sample.subarray(0, sample.length - 2));
    const again = run(e, sample);
    const ok = good.ok && again.ok && !bad.ok && good.data.toString() === text && again.data.equals(good.data);
    return ok ? e : undefined;
  } catch {
    return undefined;
  }
}

function run(e: Engine, input: Uint8Array): InflateResult {
  e.error = undefined;
  e.handle.writeSync(constants.Z_FINISH, input, 0, input.length, e.out, 0, e.out.length);
  const availOut = e.state[0]!;
  const availIn = e.state[1]!;
  e.handle.reset();
  if (e.error !== undefined) return { ok: false, message: 'not a complete zlib stream' };
  const max = e.out.length - 1;
  // One byte more than the cap was offered, so a full output buffer means the payload is too large.
  if (availOut === 0) return { ok: false, message: `payload larger than ${max} bytes` };
  if (availIn !== 0) return { ok: false, message: `${availIn} bytes after the zlib stream` };
  return { ok: true, data: Buffer.from(e.out.subarray(0, e.out.length - availOut)) };
}

function inflatePublic(input: Uint8Array, max: number): InflateResult {
  try {
    const { buffer, engine: z } = inflateSync(input, { maxOutputLength: max, info: true }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    if (z.bytesWritten !== input.length) return { ok: false, message: `${input.length - z.bytesWritten} bytes after the zlib stream` };
    return { ok: true, data: buffer };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return { ok: false, message: code === 'ERR_BUFFER_TOO_LARGE' ? `payload larger than ${max} bytes` : 'not a complete zlib stream' };
  }
}

/** Inflates one complete zlib stream of at most `max` bytes; refuses truncation, trailing bytes and bombs. */
export function inflateCapped(input: Uint8Array, max: number): InflateResult {
  if (!disabled) {
    if (engineMax !== max) {
      engine = openEngine(max);
      engineMax = max;
    }
    if (engine) {
      try {
        return run(engine, input);
      } catch {
        // fall through to the public API
      }
    }
    disabled = true;
    engine = undefined;
  }
  return inflatePublic(input, max);
}

/** For tests: the public-API path, to compare both implementations. */
export const inflateCappedPublic = inflatePublic;

/** For tests and diagnostics: whether the reused native state is in use (false after a fallback). */
export function inflateEngineActive(): boolean {
  return !disabled && engine !== undefined;
}
