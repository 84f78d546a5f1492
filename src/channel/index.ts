export { createChannelModule, type ChannelModule } from './module.ts';
export type { ChannelConfig } from './config.ts';
