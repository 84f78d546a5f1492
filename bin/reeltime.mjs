#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so a fresh clone needs no build step.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.env.TSX_TSCONFIG_PATH ??= join(root, 'tsconfig.json');
const { register } = await import('tsx/esm/api');
register();
const { main } = await import(join(root, 'src/cli/index.ts'));
const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
