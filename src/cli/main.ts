import { ConfigError } from '../config/index.ts';
import { UsageError } from './command.ts';
import { COMMANDS } from './commands/index.ts';

export const USAGE = `usage: reeltime [command] [options]

With no command, every role runs in one process on embedded defaults.

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(18)} ${c.summary}`)
  .join('\n')}
`;

/** Runs one CLI command; returns the exit code. Never throws for user errors. */
export async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  const name = first === undefined || first.startsWith('-') ? 'serve' : first;
  const args = first === undefined || first.startsWith('-') ? argv : rest;
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`reeltime: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command.run(args);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof UsageError) {
      process.stderr.write(`reeltime ${name}: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
