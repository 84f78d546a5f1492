// The chat client SDK: browser- and Node-safe (no Node imports). In Node 20 pass `WebSocket` from `ws`.
export { ChatConnection, type ChatConnectionOptions, type ChatListeners, type LoginInfo } from './connection.ts';
export { ChatTokenSession, fetchUserToken, HOURLY_MS, type ChatTokenSessionOptions } from './token-session.ts';
export { ChatError, type Timers, type WebSocketConstructor, type WebSocketLike } from './websocket.ts';
export type { TextMessage } from '../gateway/protocol.ts';
