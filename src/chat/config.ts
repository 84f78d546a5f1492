import type { CoreConfig } from '../config/core.ts';
import type { ConfigSource } from '../config/source.ts';

/** Settings of the chat module (file section "chat", environment overrides REELTIME_CHAT_*). */
export interface ChatConfig {}

export function parseChatConfig(_src: ConfigSource, _core: CoreConfig): ChatConfig {
  return {};
}
