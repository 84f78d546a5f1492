export { createChatModule, type ChatModule } from './module.ts';
export type { ChatConfig } from './config.ts';
