import type { ReeltimeModule, ServerContext } from '../server/module.ts';

export interface NotifyModule extends ReeltimeModule {}

export function createNotifyModule(_ctx: ServerContext): NotifyModule {
  return { name: 'notify', register() {}, close() {} };
}
