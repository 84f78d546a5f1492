// `node:test` as test files see it inside a batch worker (scripts/test-batch/worker.mjs). While the worker imports a
// file, its top-level test(), describe(), before() and after() calls are recorded; the worker then replays them inside
// one suite named after the file, so a file's hooks run at the end of its own tests, as when it had a process of its
// own. Any call made later (inside a running test) goes straight to node:test.
import * as real from 'node:test';

/** @type {Array<() => void> | null} */
let recording = null;

/** The worker starts recording before it imports a file... */
export function beginFile() {
  recording = [];
}

/** ...and gets the file's top-level calls back after, to replay inside the file's own suite. */
export function endFile() {
  const calls = recording ?? [];
  recording = null;
  return () => {
    for (const call of calls) call();
  };
}

/** The real describe() and test(), for the worker's suite per file. */
export const realDescribe = real.describe;
export const realTest = real.test;

function recordable(fn) {
  return (...args) => {
    if (recording === null) return fn(...args);
    recording.push(() => fn(...args));
    return Promise.resolve();
  };
}
function withModifiers(realFn) {
  const wrapped = recordable(realFn);
  for (const m of ['skip', 'todo', 'only']) if (typeof realFn[m] === 'function') wrapped[m] = recordable(realFn[m]);
  return wrapped;
}

export const test = withModifiers(real.test);
export const it = withModifiers(real.it);
export const describe = withModifiers(real.describe);
export const suite = real.suite ? withModifiers(real.suite) : describe;
export const before = recordable(real.before);
export const after = recordable(real.after);
export const beforeEach = recordable(real.beforeEach);
export const afterEach = recordable(real.afterEach);
export const mock = real.mock;
export const run = real.run;
test.describe = describe;
test.it = it;
test.test = test;
test.mock = real.mock;
test.before = before;
test.after = after;
test.beforeEach = beforeEach;
test.afterEach = afterEach;
export default test;
