import type { ReeltimeModule, ServerContext } from '../server/module.ts';

export interface ChatModule extends ReeltimeModule {}

export function createChatModule(_ctx: ServerContext): ChatModule {
  return { name: 'chat', register() {}, close() {} };
}
