export { createNotifyModule, type NotifyModule } from './module.ts';
export type { NotifyConfig } from './config.ts';
