export { loadConfig, type Config, type LoadConfigOptions } from './config.ts';
export { startReeltime, type Reeltime, type StartOptions } from './start.ts';
export { ALL_ROLES, type ReeltimeModule, type Role, type ServerContext } from './module.ts';
