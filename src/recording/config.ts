import type { CoreConfig } from '../config/core.ts';
import type { ConfigSource } from '../config/source.ts';

/** Settings of the recording module (file section "recording", environment overrides REELTIME_RECORDING_*). */
export interface RecordingConfig {}

export function parseRecordingConfig(_src: ConfigSource, _core: CoreConfig): RecordingConfig {
  return {};
}
