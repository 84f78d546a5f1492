// The bundles the test runner builds once per run from the sources, by the compiler tsx uses per file (esbuild):
// - the `reeltime` that tests start as a process of its own (src/testing/server-process.ts). bin/reeltime.mjs runs
//   the TypeScript sources through tsx, which costs every process about 2.5 s of CPU in module hooks before it does
//   anything (measured: importing the server, 5.4 s of CPU through tsx, 2.8 s from a bundle), and the multi-process
//   tests start dozens of them;
// - the heavy lane's test files (scripts/test.mjs runs each in a process of its own): the same hooks cost each file
//   about 2 s of CPU before its first test (a recorder test's imports: 3.9-4.3 s of CPU through tsx, 1.9-2.2 s from
//   its bundle, on a 2.1 GHz machine in session 20), 91 files in all.
// Packages stay in node_modules, and each module keeps its own import.meta.url (and dirname, filename: its source
// file's), so the files it reads beside itself (pages, assets, helper scripts) are found as from the sources.
import { readFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;

const ownImportMeta = {
  name: 'own-import-meta',
  setup(b) {
    // An absolute path imported at run time is a browser's (a page's module, in a function Chromium evaluates).
    b.onResolve({ filter: /^\// }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

/** What every bundle here is built with: ESM for node 20, packages left to node_modules, chunks shared. */
const COMMON = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  tsconfig: join(root, 'tsconfig.json'),
  splitting: true,
  outExtension: { '.js': '.mjs' },
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [ownImportMeta],
};

/**
 * Builds the bundle under .tmp/ (inside the checkout, so that node_modules resolves) in a folder of its own, and
 * returns its entry's path (the folder: its dirname). Split into chunks, so that what the sources import lazily
 * (the S3 and Azure uploaders and their SDKs, BullMQ, esbuild) stays lazy: in one file, esbuild hoists a lazily
 * imported module's package imports to the top, and every process loaded both SDKs at start (0.6 s of CPU).
 */
export async function buildServerBundle() {
  const dir = join(root, '.tmp', 'test-server-bundle', String(process.pid));
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'reeltime.mjs');
  await build({
    stdin: {
      contents: [
        "import { main } from './src/cli/index.ts';",
        'const code = await main(process.argv.slice(2));',
        "if (typeof code === 'number') process.exitCode = code;",
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'reeltime-test-entry.ts',
      loader: 'ts',
    },
    ...COMMON,
    outdir: dir,
    entryNames: 'reeltime',
  });
  return outfile;
}

/**
 * Builds the test files `files` (root-relative paths) into one bundle with shared chunks, under .tmp/ in a folder of
 * its own; returns the folder and, per file, its bundle's path (`<folder>/<file>.mjs`).
 */
export async function buildTestFileBundle(files) {
  const dir = join(root, '.tmp', 'test-file-bundle', String(process.pid));
  mkdirSync(dir, { recursive: true });
  await build({ ...COMMON, entryPoints: files.map((f) => join(root, f)), outbase: root, outdir: dir });
  return { dir, bundled: new Map(files.map((f) => [f, join(dir, f.replace(/\.ts$/, '.mjs'))])) };
}
