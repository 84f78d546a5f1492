// Loaded (--import) into every test process by scripts/test.mjs, before node:test. node:test (Node 20) finds the test
// a test() call belongs to through an async hook that follows every async resource, promises included, with a
// destroy hook: each promise then registers a GC callback. In a media test (werift, RTP, SRTP: several promises per
// packet) that cost 10-15 % of the process's CPU (profile of individual/record.test.ts: registerDestroyHook and the
// harness's init and destroy, 16 s of 97 s). The harness's hook here follows test resources only, without destroy.
// What changes: a global test() or hook call made after an await inside a running test lands at the top level
// (t.test() and calls made synchronously inside describe() are unaffected), and an uncaught error from an async
// resource is reported as the process's (the file fails) instead of as one test's.
import asyncHooks from 'node:async_hooks';

const createHook = asyncHooks.createHook;
asyncHooks.createHook = function createHookForTests(callbacks) {
  if (!new Error().stack?.includes('internal/test_runner/harness')) return createHook.call(this, callbacks);
  const { init } = callbacks;
  return createHook.call(this, {
    init(asyncId, type, triggerAsyncId, resource) {
      if (type === 'Test') init(asyncId, type, triggerAsyncId, resource);
    },
  });
};
