// The configuration's leaf: reading the environment and the file, core settings, errors naming a setting.
// Modules parse their own sections with these; src/server/config.ts assembles the whole `Config`.
export { MIN_SECRET_LENGTH, checkSecretLength, parseCoreConfig, parseLogLevel, type CoreConfig, type HttpSettings } from './core.ts';
export { deepFreeze, environmentSource, readConfigSource, type ReadConfigOptions } from './read.ts';
export { ConfigError, ConfigSource, HEX32, type JsonObject } from './source.ts';
