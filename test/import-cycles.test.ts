// No import cycles among the modules of src/ and packages/*/src, type-only imports included: a cycle makes the
// load order decide whether a module works (see import-each-module.test.ts) and knots two domains together.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findCycles, importGraph, sourceFiles, type ImportGraph } from './import-graph.ts';

test('the static imports of src/ and packages/*/src form no cycle', () => {
  // Every relative or workspace import resolves to a source file, so no edge is silently left out of the walk.
  const all = importGraph(sourceFiles());
  const unresolved = [...all].flatMap(([from, edges]) => edges.filter((e) => !all.has(e.to)).map((e) => `${from} -> ${e.to}`));
  assert.deepEqual(unresolved, [], 'imports that name no source file');
  const cycles = findCycles(importGraph());
  const report = cycles.map((c) => `${c.cycle.join('\n  -> ')}\n  (knot of ${c.files.length} files: ${c.files.join(', ')})`);
  assert.deepEqual(report, [], `import cycles:\n\n${report.join('\n\n')}`);
});

test('the cycle finder reports a knot with one cycle through it, and nothing for a tree', () => {
  const graph = (edges: Record<string, string[]>): ImportGraph =>
    new Map(Object.entries(edges).map(([from, to]) => [from, to.map((t) => ({ to: t, typeOnly: false }))]));
  assert.deepEqual(findCycles(graph({ a: ['b', 'c'], b: ['c'], c: [] })), []);
  assert.deepEqual(findCycles(graph({ a: ['b'], b: ['c'], c: ['a', 'd'], d: [] })), [{ files: ['a', 'b', 'c'], cycle: ['a', 'b', 'c', 'a'] }]);
  assert.deepEqual(findCycles(graph({ a: ['a'] })), [{ files: ['a'], cycle: ['a', 'a'] }]);
});
