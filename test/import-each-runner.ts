// Imports each file named on the command line, one after another, into one module graph; prints one JSON line per
// file that failed to import.
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(file).href);
  } catch (e) {
    const err = e as Error;
    process.stdout.write(`${JSON.stringify({ file, error: `${err.name}: ${err.message}`, stack: err.stack ?? '' })}\n`);
  }
}
