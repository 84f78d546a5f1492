/**
 * The static import graph of the project's sources (src/ and packages/*\/src), read with the TypeScript parser:
 * `import ... from`, `export ... from` and side-effect imports, type-only ones included (a type cycle is still a
 * knot between two modules). Dynamic `import()` is left out: it is how a module defers a dependency on purpose.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '..');

/** Bare specifiers that resolve to a workspace package's sources (tsconfig `paths`). */
const WORKSPACE: Readonly<Record<string, string>> = { '@reeltime/token': 'packages/token/src/index.ts' };

function walk(dir: string, out: string[]): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    if (e === 'node_modules' || e === 'dist' || e.startsWith('.')) continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (e.endsWith('.ts') && !e.endsWith('.d.ts')) out.push(relative(ROOT, p));
  }
}

/** Every TypeScript source file (tests included), as paths relative to the repository root, sorted. */
export function sourceFiles(): string[] {
  const out: string[] = [];
  walk(join(ROOT, 'src'), out);
  for (const pkg of readdirSync(join(ROOT, 'packages'))) walk(join(ROOT, 'packages', pkg, 'src'), out);
  return out.sort();
}

/** Modules: source files that are not tests. */
export function moduleFiles(): string[] {
  return sourceFiles().filter((f) => !f.endsWith('.test.ts'));
}

export interface ImportEdge {
  /** Root-relative path of the imported file. */
  readonly to: string;
  readonly typeOnly: boolean;
}

function specifiers(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: { spec: string; typeOnly: boolean }[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const c = st.importClause;
      const typeOnly =
        c !== undefined &&
        (c.isTypeOnly ||
          (c.name === undefined &&
            c.namedBindings !== undefined &&
            ts.isNamedImports(c.namedBindings) &&
            c.namedBindings.elements.length > 0 &&
            c.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ spec: st.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      const typeOnly =
        st.isTypeOnly ||
        (st.exportClause !== undefined &&
          ts.isNamedExports(st.exportClause) &&
          st.exportClause.elements.length > 0 &&
          st.exportClause.elements.every((e) => e.isTypeOnly));
      out.push({ spec: st.moduleSpecifier.text, typeOnly });
    }
  }
  return out;
}

/** The project files one file imports (packages from node_modules and node: builtins are not followed). */
export function importsOf(file: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const { spec, typeOnly } of specifiers(file)) {
    let to: string | undefined;
    if (spec.startsWith('.')) to = relative(ROOT, resolve(ROOT, dirname(file), spec));
    else to = WORKSPACE[spec];
    if (to !== undefined) edges.push({ to, typeOnly });
  }
  return edges;
}

export type ImportGraph = ReadonlyMap<string, readonly ImportEdge[]>;

export function importGraph(files: readonly string[] = moduleFiles()): ImportGraph {
  return new Map(files.map((f) => [f, importsOf(f)]));
}

export interface ImportCycle {
  /** Every file of the knot (a strongly connected component), sorted. */
  readonly files: readonly string[];
  /** One shortest cycle through its first file, as evidence: a -> b -> ... -> a. */
  readonly cycle: readonly string[];
}

/**
 * Every strongly connected component of more than one file (or a file importing itself), each with one cycle
 * through it. Tarjan's algorithm, iterative so deep chains do not overflow the stack.
 */
export function findCycles(graph: ImportGraph): ImportCycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const succ = (f: string) => (graph.get(f) ?? []).map((e) => e.to).filter((t) => graph.has(t));
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; children: string[]; i: number }[] = [];
    const enter = (n: string) => {
      index.set(n, next);
      low.set(n, next);
      next++;
      stack.push(n);
      onStack.add(n);
      work.push({ node: n, children: succ(n), i: 0 });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      if (top.i < top.children.length) {
        const c = top.children[top.i++]!;
        if (!index.has(c)) enter(c);
        else if (onStack.has(c)) low.set(top.node, Math.min(low.get(top.node)!, index.get(c)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const comp: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          comp.push(n);
        } while (n !== top.node);
        if (comp.length > 1 || succ(top.node).includes(top.node)) components.push(comp.sort());
      }
    }
  }
  return components.map((files) => ({ files, cycle: cycleWithin(files, succ) }));
}

/** A shortest cycle through the component's first file, by breadth-first search inside the component. */
function cycleWithin(comp: readonly string[], succ: (f: string) => string[]): string[] {
  const members = new Set(comp);
  const start = comp[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const n = queue.shift()!;
    for (const c of succ(n)) {
      if (!members.has(c)) continue;
      if (c === start) {
        const path = [n];
        while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
        return [...path, start];
      }
      if (!prev.has(c)) {
        prev.set(c, n);
        queue.push(c);
      }
    }
  }
  return [start, start];
}
