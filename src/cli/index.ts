// `npx reeltime`: the entry (bin/reeltime.mjs calls main) and what a command is made of.
export { main, USAGE } from './main.ts';
export { UsageError, type Command, type CommandRunner } from './command.ts';
