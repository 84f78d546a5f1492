import { MIX_SAMPLE_RATE } from '../audio-profile.ts';
import type { PcmFrame, PcmFormat, PcmSamples } from '../audio-mixer.ts';

/** A sine of `hz` at `amplitude` (0…1 of full scale), `frames` long, starting at phase frame `startFrame`. */
export function sineFrame(hz: number, frames: number, amplitude: number, channels: 1 | 2, format: PcmFormat, startFrame = 0): PcmFrame {
  const samples: PcmSamples = format === 's16' ? new Int16Array(frames * channels) : new Float32Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    const v = amplitude * Math.sin((2 * Math.PI * hz * (startFrame + i)) / MIX_SAMPLE_RATE);
    for (let c = 0; c < channels; c++) samples[i * channels + c] = format === 's16' ? Math.round(v * 32767) : v;
  }
  return { samples, channels };
}

/**
 * Goertzel power of one frequency in channel `channel` of interleaved samples [from, to) (frames), normalised so a
 * sine of amplitude A gives about A².
 */
export function tonePower(samples: PcmSamples, channels: number, hz: number, from = 0, to = samples.length / channels, channel = 0): number {
  const scale = samples instanceof Int16Array ? 1 / 32768 : 1;
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / MIX_SAMPLE_RATE);
  let s1 = 0;
  let s2 = 0;
  for (let i = from; i < to; i++) {
    const s0 = samples[i * channels + channel]! * scale + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const n = to - from;
  const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return (4 * power) / (n * n);
}
