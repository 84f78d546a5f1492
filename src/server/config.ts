import { parseChannelConfig, type ChannelConfig } from '../channel/config.ts';
import { checkChatConfig, parseChatConfig, type ChatConfig } from '../chat/config.ts';
import { deepFreeze, parseCoreConfig, readConfigSource, type CoreConfig, type ReadConfigOptions } from '../config/index.ts';
import { parseIngressConfig, type IngressConfig } from '../ingress/config.ts';
import { parseNotifyConfig, type NotifyConfig } from '../notify/config.ts';
import { parseRedisConfig, type RedisConfig } from '../redis/config.ts';
import { parseRecordingSettings, type RecordingSettings } from '../recording/config.ts';
import { parseStorageSettings, type StorageSettings } from '../storage/config.ts';

/** The whole configuration: the core settings and one section per module, assembled here at the root. */
export interface Config extends CoreConfig {
  readonly chat: ChatConfig;
  readonly channel: ChannelConfig;
  readonly recording: RecordingSettings;
  readonly storage: StorageSettings;
  readonly notify: NotifyConfig;
  readonly redis: RedisConfig;
  readonly ingress: IngressConfig;
}

export type LoadConfigOptions = ReadConfigOptions;

/** Reads the configuration once; the result is frozen and passed down. Throws ConfigError naming the setting. */
export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const { source, cwd } = readConfigSource(opts);
  const core = parseCoreConfig(source, cwd);
  const chat = parseChatConfig(source, core);
  const recording = parseRecordingSettings(source, core);
  checkChatConfig(chat, core, recording.customers);
  return deepFreeze({
    ...core,
    chat,
    channel: parseChannelConfig(source, core),
    recording,
    storage: parseStorageSettings(source, core),
    notify: parseNotifyConfig(source, core),
    redis: parseRedisConfig(source, core),
    ingress: parseIngressConfig(source, core),
  });
}
