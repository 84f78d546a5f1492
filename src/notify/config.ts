import type { CoreConfig } from '../config/core.ts';
import type { ConfigSource } from '../config/source.ts';

/** Settings of the notify module (file section "notify", environment overrides REELTIME_NOTIFY_*). */
export interface NotifyConfig {}

export function parseNotifyConfig(_src: ConfigSource, _core: CoreConfig): NotifyConfig {
  return {};
}
