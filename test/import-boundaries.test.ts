// Each module folder's public surface is its index.ts: a file under src/<a>/ imports another module folder
// src/<b>/ only through src/<b>/index.ts (packages through their index). Every exception is in BOUNDARY_EXCEPTIONS
// below, with its reason; an exception that no longer matches any import fails too, so the list only shrinks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importsOf, moduleFiles } from './import-graph.ts';

interface BoundaryException {
  /** Importing files: globs over root-relative paths (`*` within one path segment, `**` any depth). */
  readonly from: string | readonly string[];
  /** Imported files, same globs. */
  readonly to: string | readonly string[];
  /** Only type-only imports are excused. */
  readonly typeOnly?: true;
  readonly reason: string;
}

/** Files that only tests import: helpers to start servers, harnesses, kits. */
const TEST_HELPERS = ['src/**/testing/**', 'src/**/testing.ts', 'src/**/test-helpers.ts', 'src/**/*-kit.ts'];

/** The one list of imports allowed past another module folder's index.ts. */
export const BOUNDARY_EXCEPTIONS: readonly BoundaryException[] = [
  { from: TEST_HELPERS, to: 'src/**', reason: 'test helpers reach into the modules they drive (only tests import them)' },
  { from: 'src/**', to: TEST_HELPERS, reason: 'test helpers are no module surface; only tests and other test helpers import them' },
  {
    from: 'src/**',
    to: 'src/server/module.ts',
    typeOnly: true,
    reason: 'the module contract (ServerContext, ReeltimeModule): server/index.ts also exports the composition root, which imports every module, so going through it is a cycle',
  },
  {
    from: 'src/**',
    to: 'src/server/framework-errors.ts',
    typeOnly: true,
    reason: 'refusal wording types a module implements (ReeltimeModule.wordRefusal): same cycle as the module contract',
  },
  {
    from: 'src/*/**',
    to: 'src/server/config.ts',
    typeOnly: true,
    reason: 'the Config type a module reads its section from: same cycle as the module contract',
  },
  {
    from: 'src/cli/commands/**',
    to: 'src/server/config.ts',
    reason: 'commands that only need loadConfig (token, record, chat-token-server) do not load every module through server/index.ts',
  },
  {
    from: 'src/server/config.ts',
    to: 'src/*/config.ts',
    reason: "the composition root assembles Config from each module's section parser; a module's index.ts leads back to server/config.ts (a cycle) and loads the whole module",
  },
  {
    from: 'src/db/open.ts',
    to: 'src/*/db.ts',
    reason: "db runs each module's migrations from that module's db.ts (docs/architecture.md); a module's index.ts imports db, so going through it is a cycle",
  },
  {
    from: 'src/recording/config.ts',
    to: 'src/storage/vendors/index.ts',
    typeOnly: true,
    reason: 'the StorageArea type; storage/index.ts leads back through server/config.ts to recording/config.ts (a cycle)',
  },
  {
    from: 'src/recorders/**',
    to: 'src/recording/dispatch/index.ts',
    typeOnly: true,
    reason: "the recorder contract (Recorder, RecorderReport, RecordingTask): recording/index.ts re-exports it; recorders name only these types",
  },
  {
    from: 'src/**',
    to: 'src/media/**/index.ts',
    reason: 'media is a family of independent folders (mix/, mix/live/, capture/, push/), each with its own index.ts, so a recorder loads only the pipelines it runs',
  },
];

function globRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*\*\/|\*\*|\*)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

/** The top-level folder a file belongs to: src/<module> or packages/<name>. */
function moduleOf(file: string): string {
  const [root, name] = file.split('/');
  return `${root}/${name}`;
}

const isSurface = (to: string) => to === `${moduleOf(to)}/index.ts` || to === `${moduleOf(to)}/src/index.ts`;

interface CrossImport {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

/** Imports from one module folder into another that do not name that folder's index.ts. */
export function crossImports(files: readonly string[] = moduleFiles()): CrossImport[] {
  return files.flatMap((from) =>
    importsOf(from)
      .filter((e) => moduleOf(e.to) !== moduleOf(from) && !isSurface(e.to))
      .map((e) => ({ from, to: e.to, typeOnly: e.typeOnly })),
  );
}

const matches = (globs: string | readonly string[], file: string) => [globs].flat().some((g) => globRegExp(g).test(file));
const excuses = (x: BoundaryException, i: CrossImport) => matches(x.from, i.from) && matches(x.to, i.to) && (!x.typeOnly || i.typeOnly);

test("imports into another module folder go through its index.ts, or are listed with a reason", () => {
  const all = crossImports();
  const behind = all.filter((i) => !BOUNDARY_EXCEPTIONS.some((x) => excuses(x, i)));
  assert.deepEqual(
    behind.map((i) => `${i.from} -> ${i.to}${i.typeOnly ? ' (type-only)' : ''}`),
    [],
    "imports behind another module folder's index.ts: import its index.ts (export the name there), or add an exception with its reason to BOUNDARY_EXCEPTIONS",
  );
  const unused = BOUNDARY_EXCEPTIONS.filter((x) => !all.some((i) => excuses(x, i)));
  assert.deepEqual(unused.map((x) => `${[x.from].flat().join(' | ')} -> ${[x.to].flat().join(' | ')}`), [], 'exceptions no import needs any more: remove them');
});

test('the boundary check sees an import behind an index and the globs mean what they say', () => {
  assert.ok(globRegExp('src/**/testing/**').test('src/recorders/individual/testing/harness.ts'));
  assert.ok(globRegExp('src/**/testing/**').test('src/testing/server.ts'));
  assert.ok(!globRegExp('src/*/config.ts').test('src/recording/dispatch/config.ts'));
  assert.ok(globRegExp('src/media/**/index.ts').test('src/media/mix/live/index.ts'));
  // A real file of one module that imports another's internals (not its index.ts) is reported.
  const found = crossImports(['src/db/open.ts']);
  assert.ok(found.some((i) => i.to === 'src/recording/db.ts'), JSON.stringify(found));
  assert.ok(crossImports(['src/server/start.ts']).every((i) => i.to === 'src/server/module.ts' || i.to.endsWith('/index.ts')));
});
