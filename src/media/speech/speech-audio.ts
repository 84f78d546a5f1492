/**
 * The audio of each user's speech, kept for the transcription hook (docs/tasks/speaker-timeline.md, "Transcripts"):
 * decoded PCM reduced to 16 kHz mono (what speech-to-text services take), held from a second before the current
 * voice began, cut out as a WAV file when its interval ends. Pure: no clock, no I/O.
 */
import type { PcmFrame } from '../mix/audio-mixer.ts';

/** Speech-to-text services take 16 kHz mono. */
export const SPEECH_SAMPLE_RATE = 16_000;
/** Held before the current voice (and while nobody speaks), so an onset is never cut. */
const LEAD_MS = 1000;
/** At most this much of one user's audio is held: a longer interval is sent with its last ten minutes. */
const MAX_HELD_MS = 10 * 60_000;

interface Chunk {
  readonly atMs: number;
  readonly samples: Int16Array;
}

const chunkEnd = (c: Chunk): number => c.atMs + (c.samples.length * 1000) / SPEECH_SAMPLE_RATE;

/** `pcm` (interleaved, `sampleRate` Hz, a multiple of 16 kHz) as 16 kHz mono: channels averaged, then each group of samples. */
export function toSpeechRate(pcm: PcmFrame, sampleRate: number): Int16Array {
  const step = Math.round(sampleRate / SPEECH_SAMPLE_RATE) * pcm.channels;
  const scale = pcm.samples instanceof Int16Array ? 1 : 32767;
  const out = new Int16Array(Math.floor(pcm.samples.length / step));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let k = 0; k < step; k++) sum += pcm.samples[i * step + k]!;
    out[i] = Math.max(-32768, Math.min(32767, Math.round((sum / step) * scale)));
  }
  return out;
}

export class SpeechAudio {
  readonly #chunks = new Map<string, Chunk[]>();

  /** 16 kHz mono samples of `uid` from `atMs`; `keepFromMs`: the start of its current voice, if any. */
  push(uid: string, atMs: number, samples: Int16Array, keepFromMs: number | undefined): void {
    let list = this.#chunks.get(uid);
    if (!list) this.#chunks.set(uid, (list = []));
    // Held audio stays in time order without overlaps: a run dated before the last one's end (its sender's first
    // report moved the clock back from arrival time) loses what it repeats.
    const last = list.at(-1);
    if (last && atMs < chunkEnd(last)) {
      const skip = Math.ceil(((chunkEnd(last) - atMs) * SPEECH_SAMPLE_RATE) / 1000);
      if (skip >= samples.length) return;
      samples = samples.subarray(skip);
      atMs = chunkEnd(last);
    }
    list.push({ atMs, samples });
    const end = chunkEnd(list.at(-1)!);
    const from = Math.max((keepFromMs ?? end) - LEAD_MS, end - MAX_HELD_MS);
    while (list.length > 0 && chunkEnd(list[0]!) <= from) list.shift();
  }

  /** The held audio between two instants of `uid`'s clock, as samples (what came, in order; gaps are not filled). */
  cut(uid: string, startMs: number, endMs: number): Int16Array {
    const parts: Int16Array[] = [];
    for (const c of this.#chunks.get(uid) ?? []) {
      if (chunkEnd(c) <= startMs || c.atMs >= endMs) continue;
      const from = Math.max(0, Math.floor(((startMs - c.atMs) * SPEECH_SAMPLE_RATE) / 1000));
      const to = Math.min(c.samples.length, Math.ceil(((endMs - c.atMs) * SPEECH_SAMPLE_RATE) / 1000));
      parts.push(c.samples.subarray(from, to));
    }
    const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  forget(uid: string): void {
    this.#chunks.delete(uid);
  }
}

/** A RIFF/WAVE file of 16-bit PCM. */
export function wavFile(samples: Int16Array, sampleRate: number, channels = 1): Buffer {
  const data = samples.length * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(channels, 22);
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * channels * 2, 28);
  b.writeUInt16LE(channels * 2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(data, 40);
  for (let i = 0; i < samples.length; i++) b.writeInt16LE(samples[i]!, 44 + 2 * i);
  return b;
}
