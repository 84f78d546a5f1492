// The `reeltime` that tests start as a process of its own (src/testing/server-process.ts), bundled once per test run.
// bin/reeltime.mjs runs the TypeScript sources through tsx, which costs every process about 2.5 s of CPU in module
// hooks before it does anything (measured: importing the server, 5.4 s of CPU through tsx, 2.8 s from a bundle), and
// the multi-process tests start dozens of them. The bundle is built from the same sources by the same compiler
// (esbuild, which tsx uses per file); packages stay in node_modules, and each module keeps its own import.meta.url
// (its source file's), so the files it reads beside itself (pages, assets) are found as from the sources.
import { readFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;

const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: 'ts' };
    });
  },
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
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    tsconfig: join(root, 'tsconfig.json'),
    outdir: dir,
    entryNames: 'reeltime',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [ownImportMetaUrl],
  });
  return outfile;
}
