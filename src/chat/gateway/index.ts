// The chat WebSocket gateway: sessions, login, text messages and their store (docs/chat.md).
export { ChatGateway, GATEWAY_PATH } from './gateway.ts';
export { MessageStore } from './message-store.ts';
export { registerChatMetrics } from './metrics.ts';
export type { ChatErrorCode, ClientFrame, ServerFrame, TextMessage } from './protocol.ts';
