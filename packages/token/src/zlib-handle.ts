// The native handle of a node:zlib stream, which deflate.ts and inflate.ts drive directly to reuse one zlib state.
// It is an internal of Node, so it is feature-detected here; each user also self-checks it before trusting it.

/** The part of the native zlib handle the engines use. */
export interface NativeZlib {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
  onerror: (message: string, errno: number, code?: string) => void;
}

/** The native handle and its write state (avail out, avail in) of a fresh stream; undefined when Node hides them. */
export function nativeZlib(stream: unknown): { readonly handle: NativeZlib; readonly state: Uint32Array } | undefined {
  const s = stream as { _handle?: Partial<NativeZlib>; _writeState?: unknown };
  const h = s._handle;
  const state = s._writeState;
  if (!h || typeof h.writeSync !== 'function' || typeof h.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
    return undefined;
  }
  return { handle: h as NativeZlib, state };
}
