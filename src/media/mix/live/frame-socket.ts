/**
 * Raw frames from an ffmpeg decoder through a Unix socket ffmpeg listens on (`-listen 1 unix:<path>`), read with
 * net's `onread` straight into the caller's frame buffers (docs/recording-mix.md, "Video decoding"). A child's
 * stdio pipe hands Node a freshly allocated 64 KiB chunk per read, which the decoder then copied into its frame:
 * for four 640×360@15 users that is 20 MB/s of short-lived buffers, and the garbage collection they caused was
 * the largest item of the recorder's Node side. Here the kernel writes into the frame itself.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pidIsAlive } from '../../../process/index.ts';

/** sun_path holds 108 bytes on Linux; leave room for the terminating NUL and a margin. */
const MAX_SOCKET_PATH = 100;
const CONNECT_RETRY_MS = 20;

const SHORT_DIR_PREFIX = 'rtmix-';
/** Short directories of this process not removed yet (removed at exit at the latest). */
const liveShortDirs = new Set<string>();
let swept = false;

/**
 * Where the socket for `name` goes: in `workDir` when the path fits a socket address, else in a short directory
 * of its own under the system temp dir, `rtmix-<pid>-…`. Either is removed as soon as the reader has connected
 * (the connection outlives the name), so a process killed with SIGKILL leaves at most the sockets of decoders
 * that had not delivered a frame yet; the first short directory a process makes sweeps away those of processes
 * that are gone.
 */
export function frameSocketPath(workDir: string, name: string): string {
  const own = join(workDir, `${name}.sock`);
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH) return own;
  if (!swept) {
    swept = true;
    sweepDeadFrameSocketDirs();
    process.once('exit', () => {
      for (const dir of liveShortDirs) rmSync(dir, { recursive: true, force: true });
    });
  }
  const dir = mkdtempSync(join(tmpdir(), `${SHORT_DIR_PREFIX}${process.pid}-`));
  liveShortDirs.add(dir);
  return join(dir, `${name}.sock`);
}

/** Removes a socket's name, and its short directory if it has one: once connected, or when the reader gives up. */
export function removeFrameSocketPath(path: string): void {
  rmSync(path, { force: true });
  const dir = dirname(path);
  if (liveShortDirs.delete(dir)) rmSync(dir, { recursive: true, force: true });
}

/** Removes the short directories of processes that no longer run (killed before they could remove their own). */
export function sweepDeadFrameSocketDirs(): void {
  let entries: string[] = [];
  try {
    entries = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = new RegExp(`^${SHORT_DIR_PREFIX}(\\d+)-`).exec(entry)?.[1];
    if (pid !== undefined && !pidIsAlive(Number(pid))) rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}

export interface FrameSocketOptions {
  readonly path: string;
  /** Bytes of one frame: every `frameBytes` read make one frame. */
  readonly frameBytes: number;
  /** A buffer of `frameBytes` to read the next frame into. */
  readonly nextBuffer: () => Uint8Array;
  /** A complete frame; the buffer is the caller's from now on. */
  readonly onFrame: (frame: Uint8Array) => void;
  /** Whether to keep trying to connect (the ffmpeg child is still running). */
  readonly alive: () => boolean;
}

/**
 * Connects to ffmpeg's socket (retrying while ffmpeg has not bound it yet: it opens its output only after it has
 * probed the input) and reads whole frames until ffmpeg closes it or `close()`.
 */
export class FrameSocketReader {
  #socket: Socket | undefined;
  #closed = false;
  #filling: Uint8Array;
  #filled = 0;

  constructor(private readonly options: FrameSocketOptions) {
    this.#filling = options.nextBuffer();
    this.#connect();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket?.destroy();
    removeFrameSocketPath(this.options.path);
  }

  #connect(): void {
    if (this.#closed) return;
    const o = this.options;
    const socket = connect({
      path: o.path,
      onread: {
        // Each read lands in the rest of the frame being filled.
        buffer: () => this.#filling.subarray(this.#filled),
        callback: (bytes: number) => {
          this.#filled += bytes;
          if (this.#filled < o.frameBytes) return true;
          const frame = this.#filling;
          this.#filling = o.nextBuffer();
          this.#filled = 0;
          if (!this.#closed) o.onFrame(frame);
          return true;
        },
      },
    });
    this.#socket = socket;
    // Connected: the name is no longer needed (and would be left behind by a SIGKILL).
    socket.once('connect', () => removeFrameSocketPath(o.path));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      socket.destroy();
      // Not bound (ENOENT) or not listening yet (ECONNREFUSED): ffmpeg is still probing its input.
      const early = e.code === 'ENOENT' || e.code === 'ECONNREFUSED';
      if (early && !this.#closed && o.alive()) setTimeout(() => this.#connect(), CONNECT_RETRY_MS).unref();
    });
    socket.on('close', () => {
      if (this.#socket === socket && socket.bytesRead > 0) this.close();
    });
  }
}
