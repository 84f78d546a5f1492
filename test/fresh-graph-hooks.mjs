// Module hooks that give each top-level import its own instances of the project's modules. A project file
// imported as `file.ts?graph=N` passes `?graph=N` on to every project file it imports, so its whole graph of
// project modules is evaluated afresh, in the order that file's imports dictate, exactly as if it were the first
// file a new process loads. Packages from node_modules stay shared (they are not what this checks).
// Resolving a specifier and reading + transpiling a file give the same answer in every graph, so both are
// memoized per file: only the module instances are new in each graph. Without this the hooks thread re-read
// and re-resolved each file once per graph, and the main thread mostly waited on it.
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `url` without its graph parameter, or null when it has none. */
function shared(url) {
  if (!url?.includes('graph=')) return null;
  const u = new URL(url);
  if (!u.searchParams.has('graph')) return null;
  u.searchParams.delete('graph');
  return u.href;
}

const resolved = new Map();

export async function resolve(specifier, context, nextResolve) {
  const parent = shared(context.parentURL);
  const key = parent === null ? null : `${specifier}\0${parent}\0${JSON.stringify(context.importAttributes ?? {})}`;
  let result;
  // A remembered answer ends the chain here (shortCircuit): the next hooks gave it the first time.
  if (key !== null && resolved.has(key)) result = { ...resolved.get(key), shortCircuit: true };
  else {
    result = await nextResolve(specifier, context);
    if (key !== null) resolved.set(key, result);
  }
  const graph = context.parentURL ? new URL(context.parentURL).searchParams.get('graph') : null;
  if (graph === null || !result.url.startsWith('file:')) return result;
  const url = new URL(result.url);
  const path = fileURLToPath(url);
  if (!path.startsWith(ROOT) || path.includes('/node_modules/')) return result;
  url.searchParams.set('graph', graph);
  return { ...result, url: url.href };
}

const loaded = new Map();

export async function load(url, context, nextLoad) {
  const file = shared(url);
  if (file === null) return nextLoad(url, context);
  const key = `${file}\0${context.format ?? ''}\0${JSON.stringify(context.importAttributes ?? {})}`;
  let result = loaded.get(key);
  if (result !== undefined) return { ...(await result), shortCircuit: true };
  result = nextLoad(url, context);
  loaded.set(key, result);
  // A failed load is not remembered: the next graph tries again and reports its own error.
  result.catch(() => loaded.delete(key));
  return { ...(await result) };
}
