// The bundles the test runner builds once per run from the sources, by the compiler tsx uses per file (esbuild):
// - the `reeltime` that tests start as a process of its own (src/testing/server-process.ts). bin/reeltime.mjs runs
//   the TypeScript sources through tsx, which costs every process about 2.5 s of CPU in module hooks before it does
//   anything (measured: importing the server, 5.4 s of CPU through tsx, 2.8 s from a bundle), and the multi-process
//   tests start dozens of them;
// - the heavy lane's test files (scripts/test.mjs runs each in a process of its own): the same hooks cost each file
//   about 2 s of CPU before its first test (a recorder test's imports: 3.9-4.3 s of CPU through tsx, 1.9-2.2 s from
//   its bundle, on a 2.1 GHz machine in session 20), 91 files in all.
// Most packages are bundled too (EXTERNAL_PACKAGES says which are not), and each module keeps its own import.meta.url (and dirname, filename: its source
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
      return { contents: ownImportMetaOf(await readFile(args.path, 'utf8'), args.path), loader: 'ts' };
    });
    // A bundled package's module keeps its own file's location too: CommonJS's __dirname and __filename (which an ES
    // module has not) and ES modules' import.meta (typescript finds its lib files by its __filename).
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (source.includes('import.meta.')) return { contents: ownImportMetaOf(source, args.path), loader: 'js' };
      if (!/\b__(dirname|filename)\b/.test(source) || /\b(const|let)\s+__(dirname|filename)\b/.test(source)) return undefined;
      const contents = `var __dirname = ${JSON.stringify(dirname(args.path))}, __filename = ${JSON.stringify(args.path)};\n${source}`;
      return { contents, loader: 'js' };
    });
  },
};

/** A module's source with its import.meta's location fields replaced by its own file's. */
function ownImportMetaOf(source, path) {
  return source
    .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
    .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
    .replaceAll('import.meta.filename', JSON.stringify(path));
}

/**
 * The packages left to node_modules, each for a reason: files beside itself it loads (better-sqlite3's native addon,
 * libopus-wasm's wasm, playwright-core's driver, pino's transports in worker threads), a binary or loader (esbuild,
 * tsx, typescript), one copy shared with another external package (BullMQ takes ioredis connections and loads ioredis itself),
 * lazy and large (the S3 and Azure SDKs), optional (pg-native). Every other package is bundled: a process loading
 * them from node_modules resolved, read and compiled them file by file (a test server's start: 2.2-2.8 s of CPU with
 * all packages left out, 1.5-1.8 s with these, beside a running suite in session 35).
 */
const EXTERNAL_PACKAGES = [
  'better-sqlite3',
  'libopus-wasm',
  'playwright-core',
  'pino',
  'pino-*',
  'thread-stream',
  'esbuild',
  'tsx',
  'typescript',
  'bullmq',
  'ioredis',
  '@aws-sdk/*',
  '@smithy/*',
  '@azure/*',
  'pg-native',
];

/** What every bundle here is built with: ESM for node 20, most packages bundled (EXTERNAL_PACKAGES), chunks shared. */
const COMMON = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL_PACKAGES,
  // Bundled CommonJS packages require Node's built-in modules: an ES module has no `require` of its own.
  banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
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
