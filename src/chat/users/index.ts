// The chat users REST API: registration, lookup, app and user bearer checks, the user store.
export type { ChatApp } from './auth.ts';
export { registerUsersRoutes } from './routes.ts';
export { ChatUserStore, type ChatUser } from './store.ts';
export { wordChatRefusal } from './refusals.ts';
