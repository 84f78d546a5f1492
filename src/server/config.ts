import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseChannelConfig, type ChannelConfig } from '../channel/config.ts';
import { parseChatConfig, type ChatConfig } from '../chat/config.ts';
import { parseNotifyConfig, type NotifyConfig } from '../notify/config.ts';
import { parseRecordingConfig, type RecordingConfig } from '../recording/config.ts';
import { parseStorageConfig, type StorageConfig } from '../storage/config.ts';
import { parseCoreConfig, type CoreConfig } from './core.ts';
import { ConfigError, ConfigSource, type JsonObject } from './source.ts';

export interface Config extends CoreConfig {
  readonly chat: ChatConfig;
  readonly channel: ChannelConfig;
  readonly recording: RecordingConfig;
  readonly storage: StorageConfig;
  readonly notify: NotifyConfig;
}

export interface LoadConfigOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Path of a JSON config file; defaults to $REELTIME_CONFIG, then ./reeltime.json when present. */
  readonly file?: string;
  /** Parsed file contents, instead of reading a file (tests). */
  readonly values?: JsonObject;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/** Reads the configuration once; the result is frozen and passed down. Throws ConfigError naming the setting. */
export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  let values: JsonObject = opts.values ?? {};
  if (!opts.values) {
    const explicit = opts.file ?? env.REELTIME_CONFIG;
    const path = explicit ? resolve(cwd, explicit) : resolve(cwd, 'reeltime.json');
    if (explicit && !existsSync(path)) throw new ConfigError('REELTIME_CONFIG', `file not found: ${path}`);
    if (existsSync(path)) {
      try {
        values = JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
      } catch (e) {
        throw new ConfigError('REELTIME_CONFIG', `${path} is not valid JSON: ${(e as Error).message}`);
      }
      if (!values || typeof values !== 'object' || Array.isArray(values)) {
        throw new ConfigError('REELTIME_CONFIG', `${path} must hold a JSON object`);
      }
    }
  }
  const src = new ConfigSource(values, env);
  const core = parseCoreConfig(src, cwd);
  return deepFreeze({
    ...core,
    chat: parseChatConfig(src, core),
    channel: parseChannelConfig(src, core),
    recording: parseRecordingConfig(src, core),
    storage: parseStorageConfig(src, core),
    notify: parseNotifyConfig(src, core),
  });
}
