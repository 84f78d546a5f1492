import { rmsDbfs } from '../mix/active-speaker.ts';
import type { PcmFrame } from '../mix/audio-mixer.ts';
import type { LevelFrame } from './speech-detector.ts';

/** Level frames are this long: one Opus packet's usual length. */
export const LEVEL_FRAME_MS = 20;

/**
 * A run of decoded audio (interleaved, `sampleRate` Hz) that began at `atMs` on the sender's clock, as level
 * frames of LEVEL_FRAME_MS (the last one shorter when the run does not divide).
 */
export function levelFrames(atMs: number, pcm: PcmFrame, sampleRate: number): LevelFrame[] {
  const perFrame = Math.round((sampleRate * LEVEL_FRAME_MS) / 1000) * pcm.channels;
  const out: LevelFrame[] = [];
  for (let at = 0; at < pcm.samples.length; at += perFrame) {
    const samples = pcm.samples.subarray(at, Math.min(pcm.samples.length, at + perFrame));
    const durationMs = (samples.length / pcm.channels / sampleRate) * 1000;
    out.push({ atMs: atMs + (at / pcm.channels / sampleRate) * 1000, durationMs, levelDbfs: rmsDbfs(samples) });
  }
  return out;
}
