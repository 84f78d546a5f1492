export type { CoreConfig } from './core.ts';
export { ConfigError, ConfigSource, HEX32 } from './source.ts';
export type { JsonObject } from './source.ts';
export { loadConfig, type Config, type LoadConfigOptions } from './load.ts';
