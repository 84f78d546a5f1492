/** What a command file exports: parses its own arguments, runs, and returns the exit code. */
export interface CommandRunner {
  run(args: readonly string[]): Promise<number>;
}

/** One `reeltime <name>` entry: its help line, and a runner loaded only when the command runs. */
export interface Command extends CommandRunner {
  readonly summary: string;
}

/** A bad flag or argument: printed without a stack trace, exit code 2. Commands import it from here, never `main.ts`. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
