// Imports each file named on the command line as if it were the first thing a fresh process loads (see
// fresh-graph-hooks.mjs), one after another; prints one JSON line per file that failed to import.
import { pathToFileURL } from 'node:url';

let graph = 0;
for (const file of process.argv.slice(2)) {
  const url = `${pathToFileURL(file).href}?graph=${++graph}`;
  try {
    await import(url);
  } catch (e) {
    const err = e as Error;
    process.stdout.write(`${JSON.stringify({ file, error: `${err.name}: ${err.message}`, stack: err.stack ?? '' })}\n`);
  }
}
