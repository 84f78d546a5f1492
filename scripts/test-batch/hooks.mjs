// Module hook for a batch worker (scripts/test-batch/worker.mjs): test files' `import ... from 'node:test'` gets the
// shim, which scopes each file's tests and hooks to a suite of its own. The shim itself gets the real module.
const SHIM = new URL('./shim.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'node:test' || specifier === 'test') && context.parentURL !== SHIM) return { url: SHIM, shortCircuit: true };
  return nextResolve(specifier, context);
}
