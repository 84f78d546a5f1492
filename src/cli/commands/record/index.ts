// `reeltime record start|query|update|stop|watch|list|files`: the recording API through @reeltime/client (docs/client.md).
// One file per subcommand; context.ts has what they share.
import { RecordingError } from '@reeltime/client';
import { UsageError, type CommandRunner } from '../../command.ts';
import { context, parse, usage, USAGE, type Context } from './context.ts';
import { files } from './files.ts';
import { list } from './list.ts';
import { query } from './query.ts';
import { start } from './start.ts';
import { stop } from './stop.ts';
import { update } from './update.ts';
import { watch } from './watch.ts';

const SUBCOMMANDS: Readonly<Record<string, (ctx: Context) => Promise<number>>> = { start, query, update, stop, watch, list, files };

export const record: CommandRunner = {
  async run(args) {
    const { values, positionals } = parse(args);
    const [name, ...extra] = positionals;
    if (values.help || name === undefined) {
      process.stdout.write(`${USAGE}\n`);
      return name === undefined && !values.help ? 2 : 0;
    }
    const sub = SUBCOMMANDS[name];
    if (!sub) throw usage(`unknown record command "${name}"`);
    if (extra.length > 0) throw usage(`unexpected argument "${extra[0]}"`);
    try {
      return await sub(context(values));
    } catch (e) {
      if (e instanceof RecordingError || (e instanceof Error && !(e instanceof UsageError) && /fetch failed|not recording/.test(e.message))) {
        process.stderr.write(`reeltime record ${name}: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  },
};
