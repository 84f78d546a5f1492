/**
 * A TrackPipeline's state, as one union and one transition function (pure): opening its socket, waiting for the
 * first packet (a transcoding slicer reads the AAC channel count from it), ffmpeg launched and binding its port,
 * running, stopping (asked by stop(); held packets still go out after the bind so the BYE ends a stream that holds
 * them), ended (by stop() or by ffmpeg exiting on its own). The pipeline runs the effects: the launch, each packet
 * held, sent or dropped, the held packets flushed, the port released, resources closed, and how an end on its own
 * is reported (slicerEnd tells a quiet input from a broken slicer).
 */
import type { FfmpegExit } from './ffmpeg.ts';

export type SlicerState =
  /** start() is connecting the socket: packets are held. */
  | { readonly kind: 'opening' }
  /** Transcoding slicer: ffmpeg starts with the first packet (held until the bind). */
  | { readonly kind: 'awaiting-packet' }
  /** ffmpeg launched, its port not bound yet: packets are held. */
  | { readonly kind: 'binding' }
  | { readonly kind: 'running' }
  /** stop() asked; `bound`: packets go to ffmpeg (else held until the bind). */
  | { readonly kind: 'stopping'; readonly bound: boolean }
  | { readonly kind: 'ended'; readonly by: 'stop' | 'exit' };

export type SlicerInput =
  /** start() connected its socket; `launchOnPacket`: a transcoding slicer that holds no packet yet. */
  | { readonly kind: 'opened'; readonly launchOnPacket: boolean }
  | { readonly kind: 'packet' }
  /** ffmpeg bound its port (or the bind wait gave up). */
  | { readonly kind: 'bound' }
  | { readonly kind: 'stop' }
  /** stop()'s end of stream is done (BYE or signals). */
  | { readonly kind: 'stopped' }
  /**
   * ffmpeg exited; `idleMs`: how long the pipeline had been without a packet; `inputTimedOut`: its input ended for
   * want of packets (ffmpeg's RTP reader said so, or the pipeline closed a piped input after INPUT_TIMEOUT_MS).
   */
  | { readonly kind: 'exited'; readonly exit: FfmpegExit; readonly idleMs: number; readonly inputTimedOut: boolean };

export type SlicerEffect =
  /** Spawn ffmpeg and wait for its bind; `awaited`: start() waits for it (else a packet started it). */
  | { readonly kind: 'launch'; readonly awaited: boolean }
  | { readonly kind: 'hold' }
  | { readonly kind: 'send' }
  /** The held packets go to ffmpeg (`send`) or nowhere (ffmpeg is gone). */
  | { readonly kind: 'flush-held'; readonly send: boolean }
  | { readonly kind: 'release-port' }
  /** ffmpeg ended on its own: release the socket and the snapshot watcher, then report how it ended. */
  | { readonly kind: 'ended-alone'; readonly end: SlicerEnd; readonly exit: FfmpegExit; readonly idleMs: number }
  /** stop() is done: the last snapshots are read, the socket and watcher released. */
  | { readonly kind: 'finish' };

export interface SlicerStep {
  readonly state: SlicerState;
  readonly effects: readonly SlicerEffect[];
}

/**
 * How long ffmpeg's RTP/SDP reader waits for a packet before it ends its input (`READ_PACKET_TIMEOUT_S` in
 * libavformat/rtsp.c): it then prints `<input>: Connection timed out`, finishes its outputs and exits 0.
 */
export const INPUT_TIMEOUT_MS = 10_000;
/** Slack on INPUT_TIMEOUT_MS for the two clocks (ffmpeg counts 100 ms polls; ours is read when the exit is seen). */
const INPUT_TIMEOUT_SLACK_MS = 1_000;
/** stderr lines that mean the output side failed, even when ffmpeg still exits 0 (a trailer it could not write). */
const OUTPUT_FAULT = /Error writing trailer|av_interleaved_write_frame\(\)|No space left on device|Input\/output error|Permission denied|Conversion failed/i;
/** The SDP file ffmpeg reads its input from (its timeout line names it). */
export const INPUT_SDP = 'input.sdp';

/** Why a slicer's ffmpeg ended on its own. */
export type SlicerEnd = 'inputTimeout' | 'failure';

/** Whether ffmpeg's RTP/SDP reader ended its input for want of packets (`<sdpName>: Connection timed out`). */
export function ffmpegSaysInputTimedOut(exit: FfmpegExit, sdpName: string): boolean {
  return exit.stderrTail.split('\n').some((l) => l.trim().endsWith(`${sdpName}: Connection timed out`));
}

/**
 * Decides whether ffmpeg ended on its own because its input had no packet for its timeout (a clean end of the
 * stream) or because something broke. All of these must hold for the former: a normal exit (code 0, no signal),
 * the input's own word that it timed out (`inputTimedOut`), no sign of an output fault, and the pipeline itself saw
 * no packet for the timeout (so a timeout while packets were being sent, meaning the loopback path broke, is still
 * a failure). Anything else (crash, signal, bad exit, write error) is a failure.
 */
export function slicerEnd(exit: FfmpegExit, idleMs: number, inputTimedOut: boolean): SlicerEnd {
  if (exit.code !== 0 || exit.signal !== null) return 'failure';
  const lines = exit.stderrTail.split('\n').map((l) => l.trim());
  if (!inputTimedOut || lines.some((l) => OUTPUT_FAULT.test(l))) return 'failure';
  return idleMs >= INPUT_TIMEOUT_MS - INPUT_TIMEOUT_SLACK_MS ? 'inputTimeout' : 'failure';
}

export const INITIAL_SLICER_STATE: SlicerState = Object.freeze({ kind: 'opening' });

// Steps of the packet path are shared constants: push() runs for every RTP packet.
const RUNNING: SlicerState = Object.freeze({ kind: 'running' });
const BINDING: SlicerState = Object.freeze({ kind: 'binding' });
const HOLD = Object.freeze([Object.freeze({ kind: 'hold' })] as const);
const SEND = Object.freeze([Object.freeze({ kind: 'send' })] as const);
const NONE: readonly SlicerEffect[] = Object.freeze([]);
const SEND_RUNNING: SlicerStep = Object.freeze({ state: RUNNING, effects: SEND });

const stay = (state: SlicerState, effects: readonly SlicerEffect[] = NONE): SlicerStep => ({ state, effects });

/** Whether stop() or an exit already took the pipeline (nothing may start or end it again). */
export function isStoppedOrEnded(s: SlicerState): boolean {
  return s.kind === 'stopping' || s.kind === 'ended';
}

/** Whether packets go straight to ffmpeg (its port is bound). */
export function isBound(s: SlicerState): boolean {
  return s.kind === 'running' || (s.kind === 'stopping' && s.bound);
}

export function stepSlicer(s: SlicerState, input: SlicerInput): SlicerStep {
  switch (input.kind) {
    case 'packet':
      if (s.kind === 'running') return SEND_RUNNING;
      if (s.kind === 'ended') return stay(s);
      if (s.kind === 'stopping') return stay(s, s.bound ? SEND : HOLD);
      // The first packet of a transcoding slicer starts its ffmpeg.
      if (s.kind === 'awaiting-packet') return { state: BINDING, effects: [{ kind: 'hold' }, { kind: 'launch', awaited: false }] };
      return stay(s, HOLD);
    case 'opened':
      // A stop during start: the port allocated for ffmpeg is given back.
      if (isStoppedOrEnded(s)) return stay(s, [{ kind: 'release-port' }]);
      if (s.kind !== 'opening') return stay(s);
      if (input.launchOnPacket) return stay({ kind: 'awaiting-packet' });
      return { state: BINDING, effects: [{ kind: 'launch', awaited: true }] };
    case 'bound':
      if (s.kind === 'binding') return { state: RUNNING, effects: [{ kind: 'flush-held', send: true }] };
      if (s.kind === 'stopping') return { state: { kind: 'stopping', bound: true }, effects: [{ kind: 'flush-held', send: true }] };
      // ffmpeg ended during the wait (its socket is closed then): the held packets have nowhere to go.
      if (s.kind === 'ended') return stay(s, [{ kind: 'flush-held', send: false }]);
      return stay(s);
    case 'stop':
      if (isStoppedOrEnded(s)) return stay(s);
      // A transcoding slicer that never got a packet never started: its port is given back now.
      return { state: { kind: 'stopping', bound: s.kind === 'running' }, effects: s.kind === 'awaiting-packet' ? [{ kind: 'release-port' }] : NONE };
    case 'stopped':
      return s.kind === 'stopping' ? { state: { kind: 'ended', by: 'stop' }, effects: [{ kind: 'finish' }] } : stay(s);
    case 'exited':
      // After stop() the exit is stop()'s to handle.
      if (isStoppedOrEnded(s)) return stay(s);
      return {
        state: { kind: 'ended', by: 'exit' },
        effects: [{ kind: 'ended-alone', end: slicerEnd(input.exit, input.idleMs, input.inputTimedOut), exit: input.exit, idleMs: input.idleMs }],
      };
  }
}
