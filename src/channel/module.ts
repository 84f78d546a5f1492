import type { ReeltimeModule, ServerContext } from '../server/module.ts';

export interface ChannelModule extends ReeltimeModule {}

export function createChannelModule(_ctx: ServerContext): ChannelModule {
  return { name: 'channel', register() {}, close() {} };
}
