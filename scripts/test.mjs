// Runs every *.test.ts under src/, packages/*/src and test/ with node's test runner (through tsx).
// Node 20 has no glob support in `node --test`, hence this file list.  Usage: node scripts/test.mjs [filter...]
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const files = [];
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    if (e === 'node_modules' || e === 'dist' || e.startsWith('.')) continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.test.ts')) files.push(relative(root, p));
  }
}
walk(join(root, 'src'));
walk(join(root, 'test'));
for (const pkg of readdirSync(join(root, 'packages'))) walk(join(root, 'packages', pkg, 'src'));

const filters = process.argv.slice(2);
const selected = files.sort().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=300000', ...selected],
  { stdio: 'inherit', cwd: root, env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'tsconfig.json') } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
