import type { Command } from '../command.ts';

export const publish: Command = {
  summary: 'publish a synthetic test stream (colour + tone) into a channel over WHIP',
  async run() {
    process.stderr.write('reeltime publish: not implemented yet\n');
    return 1;
  },
};
