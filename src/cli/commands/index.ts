import { chatTokenServer } from '../../chat/cli.ts';
import type { Command } from '../command.ts';
import { publish } from './publish.ts';
import { roleCommand, serve } from './serve.ts';
import { token } from './token.ts';

export const COMMANDS: Readonly<Record<string, Command>> = Object.freeze({
  serve,
  api: roleCommand('api', 'run the recording API role (REST, webhooks, local bucket)'),
  recorder: roleCommand('recorder', 'run the recorder role'),
  channel: roleCommand('channel', 'run the real-time channel role (WHIP/WHEP SFU)'),
  chat: roleCommand('chat', 'run the chat role (token server, users API, gateway)'),
  'chat-token-server': chatTokenServer,
  token,
  publish,
});
