import type { CoreConfig } from '../config/core.ts';
import type { ConfigSource } from '../config/source.ts';

/** Settings of the channel module (file section "channel", environment overrides REELTIME_CHANNEL_*). */
export interface ChannelConfig {}

export function parseChannelConfig(_src: ConfigSource, _core: CoreConfig): ChannelConfig {
  return {};
}
