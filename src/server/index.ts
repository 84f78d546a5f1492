export { loadConfig, type Config, type LoadConfigOptions } from './config.ts';
export { startReeltime, type Reeltime, type RegisteredRoute, type StartOptions } from './start.ts';
export { ALL_ROLES, type ReeltimeModule, type Role, type ServerContext } from './module.ts';
export { answerRefusal, plainRefusal, MAX_PARAM_LENGTH, type Refusal, type RefusalAnswer, type RefusalWording } from './framework-errors.ts';
