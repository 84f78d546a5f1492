import type { Command } from '../command.ts';

export const token: Command = {
  summary: 'build or inspect AccessToken2 tokens (chat-app, chat-user, rtc, inspect)',
  async run() {
    process.stderr.write('reeltime token: not implemented yet\n');
    return 1;
  },
};
