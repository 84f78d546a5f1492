/** Every mix is produced at 48 kHz whatever the profile; Opus decodes to 48 kHz, so no resampling is needed. */
export const MIX_SAMPLE_RATE = 48_000;

export type MixAudioProfileId = 0 | 1 | 2;

/** One `audioProfile` value: what the mixer produces (channels) and what the encoder is asked for (bitrate). */
export interface MixAudioProfile {
  readonly id: MixAudioProfileId;
  readonly sampleRate: number;
  readonly channels: 1 | 2;
  /** The documented "about" bitrate, for the AAC encoder. */
  readonly bitrateKbps: number;
}

export const MIX_AUDIO_PROFILES: readonly MixAudioProfile[] = Object.freeze([
  Object.freeze({ id: 0, sampleRate: MIX_SAMPLE_RATE, channels: 1, bitrateKbps: 48 }),
  Object.freeze({ id: 1, sampleRate: MIX_SAMPLE_RATE, channels: 1, bitrateKbps: 128 }),
  Object.freeze({ id: 2, sampleRate: MIX_SAMPLE_RATE, channels: 2, bitrateKbps: 192 }),
] as const);

/** `audioProfile` 0 when omitted. */
export const DEFAULT_MIX_AUDIO_PROFILE: MixAudioProfileId = 0;

export function mixAudioProfile(id: number = DEFAULT_MIX_AUDIO_PROFILE): MixAudioProfile {
  const profile = MIX_AUDIO_PROFILES[id];
  if (!Number.isInteger(id) || !profile) throw new RangeError(`audioProfile must be 0, 1 or 2, got ${id}`);
  return profile;
}
