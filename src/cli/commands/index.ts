import type { Command, CommandRunner } from '../command.ts';

/** A command whose code loads when it runs: `reeltime token` does not load the server, `reeltime help` nothing. */
function lazy(summary: string, load: () => Promise<CommandRunner>): Command {
  return { summary, run: async (args) => (await load()).run(args) };
}

const role = (r: 'api' | 'recorder' | 'channel' | 'chat') => async () => (await import('./serve.ts')).roleCommand(r);

export const COMMANDS: Readonly<Record<string, Command>> = Object.freeze({
  serve: lazy('run every role in one process (the default)', async () => (await import('./serve.ts')).serve),
  api: lazy('run the recording API role (REST, webhooks, local bucket)', role('api')),
  recorder: lazy('run the recorder role', role('recorder')),
  channel: lazy('run the real-time channel role (WHIP/WHEP SFU)', role('channel')),
  chat: lazy('run the chat role (token server, users API, gateway)', role('chat')),
  'chat-token-server': lazy('run the chat token server alone (--config file.properties)', async () => (await import('./chat-token-server.ts')).chatTokenServer),
  token: lazy('build or inspect AccessToken2 tokens (chat-app, chat-user, rtc, inspect)', async () => (await import('./token.ts')).token),
  record: lazy('record a channel through the recording API (start, query, update, stop, watch, list, files)', async () => (await import('./record/index.ts')).record),
  impair: lazy('relay UDP through an impaired link (loss, bursts, delay, jitter, reordering, cap) for loss tests', async () => (await import('./impair.ts')).impair),
  publish: lazy('publish a synthetic test stream (colour + tone) into a channel over WHIP', async () => (await import('./publish.ts')).publish),
});
