// When each frame of an H.264 RTP stream is decoded, by the frame number its picture carries (FRAME_CODE): the
// ingest benchmark compares two paths fed by one source. Packets → access units (the recorder's assembler) → IVF
// on an ffmpeg's stdin → grey pictures on its stdout, read as they come out. The decoder's own delay is the same on
// both paths.
import type { ChildProcess } from 'node:child_process';
import { readFrameCode } from '../../src/channel/index.ts';
import { FFMPEG_BIN } from '../../src/media/index.ts';
import { IVF_VIDEO_TIMEBASE, ivfFileHeader, ivfFrameHeader, RtpTimestampUnwrapper } from '../../src/media/ivf.ts';
import { spawnChild } from '../../src/process/index.ts';
import { H264AccessUnitAssembler } from '../../src/rtp-payload/index.ts';

export interface FrameTimes {
  /** One RTP packet of the stream (header included). */
  push(packet: Buffer): void;
  /** performance.now() when each frame number was first decoded. */
  readonly seen: ReadonlyMap<number, number>;
  close(): void;
}

export function startFrameTimes(width: number, height: number): FrameTimes {
  const seen = new Map<number, number>();
  const decoder: ChildProcess = spawnChild(
    FFMPEG_BIN,
    ['-hide_banner', '-loglevel', 'error', '-threads', '1', '-fflags', '+nobuffer', '-flags', 'low_delay', '-f', 'ivf', '-i', 'pipe:0', '-vf', 'format=gray', '-f', 'rawvideo', 'pipe:1'],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  decoder.stdin!.on('error', () => undefined);
  decoder.stdin!.write(ivfFileHeader('H264', width, height, IVF_VIDEO_TIMEBASE));
  const size = width * height;
  let pending = Buffer.alloc(0);
  decoder.stdout!.on('data', (d: Buffer) => {
    const at = performance.now();
    pending = Buffer.concat([pending, d]);
    while (pending.length >= size) {
      const code = readFrameCode(pending, width, height);
      if (code !== undefined && !seen.has(code)) seen.set(code, at);
      pending = pending.subarray(size);
    }
  });
  const assembler = new H264AccessUnitAssembler();
  const clock = new RtpTimestampUnwrapper();
  let started = false;
  return {
    push(packet) {
      for (const unit of assembler.push(packet)) {
        // A decoder starts at a keyframe.
        if (!started && !unit.key) continue;
        started = true;
        decoder.stdin!.write(Buffer.concat([ivfFrameHeader(unit.annexB.length, clock.next(unit.timestamp)), unit.annexB]));
      }
    },
    seen,
    close: () => void decoder.kill('SIGKILL'),
  };
}
