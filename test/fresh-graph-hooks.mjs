// Module hooks that give each top-level import its own instances of the project's modules. A project file
// imported as `file.ts?graph=N` passes `?graph=N` on to every project file it imports, so its whole graph of
// project modules is evaluated afresh, in the order that file's imports dictate, exactly as if it were the first
// file a new process loads. Packages from node_modules stay shared (they are not what this checks).
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const graph = context.parentURL ? new URL(context.parentURL).searchParams.get('graph') : null;
  if (graph === null || !result.url.startsWith('file:')) return result;
  const url = new URL(result.url);
  const path = fileURLToPath(url);
  if (!path.startsWith(ROOT) || path.includes('/node_modules/')) return result;
  url.searchParams.set('graph', graph);
  return { ...result, url: url.href };
}
